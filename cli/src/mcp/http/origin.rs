//! The `Origin` check: MCP streamable HTTP, "Security Warning": servers MUST validate the
//! `Origin` header on all incoming connections to prevent DNS rebinding, and answer 403
//! when it is present and invalid.
//!
//! Browsers send `Origin`; other clients (the MCP SDKs, curl) do not, and are let through.
//! A present `Origin` passes only when it is `http` or `https` and its host is one of the
//! server's own names: the loopback names, the address it listens on, and the
//! `--allowed-host` names (any port: a local tool's page, such as an MCP inspector, is
//! served from another port of the same host). The `Host` header is not consulted: a
//! rebinding page makes it agree with its own origin.

use http::HeaderMap;

use super::refusal::Refusal;

/// The hosts a browser page may be served from.
#[derive(Debug, Clone)]
pub struct Origins {
    hosts: Vec<String>,
}

impl Origins {
    /// `names`: host names or `host:port` authorities (the port is not compared).
    pub fn new<'a>(names: impl IntoIterator<Item = &'a str>) -> Origins {
        let mut hosts: Vec<String> = names.into_iter().filter_map(host_of_authority).collect();
        hosts.sort();
        hosts.dedup();
        Origins { hosts }
    }

    pub fn check(&self, headers: &HeaderMap) -> Result<(), Refusal> {
        for value in headers.get_all(http::header::ORIGIN) {
            let text = String::from_utf8_lossy(value.as_bytes());
            let allowed = value.to_str().ok().and_then(host_of_origin).is_some_and(|host| self.hosts.contains(&host));
            if !allowed {
                return Err(Refusal::BadOrigin { origin: text.chars().take(200).collect() });
            }
        }
        Ok(())
    }
}

/// The host of an origin as browsers serialize it (`scheme://host[:port]`, RFC 6454 §6.2),
/// lower-cased; `None` for anything else (`null`, another scheme, a path).
fn host_of_origin(origin: &str) -> Option<String> {
    let uri: http::Uri = origin.trim().parse().ok()?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) {
        return None;
    }
    if uri.path_and_query().is_some_and(|p| p.as_str() != "/") || origin.trim().ends_with('/') {
        return None;
    }
    host_of_authority(uri.authority()?.as_str())
}

/// The host of `host[:port]`, `[v6]:port` or a bare IPv6 address, lower-cased; an IP
/// address in its canonical form (so `[0:0::1]` is `::1`).
fn host_of_authority(authority: &str) -> Option<String> {
    let authority = authority.trim();
    if let Ok(ip) = authority.parse::<std::net::IpAddr>() {
        return Some(ip.to_string());
    }
    let authority: http::uri::Authority = authority.parse().ok()?;
    if authority.as_str().contains('@') {
        return None;
    }
    let host = authority.host().trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<std::net::IpAddr>() {
        return Some(ip.to_string());
    }
    (!host.is_empty()).then(|| host.to_ascii_lowercase())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(origins: &Origins, values: &[&str]) -> Result<(), Refusal> {
        let mut headers = HeaderMap::new();
        for value in values {
            headers.append(http::header::ORIGIN, http::HeaderValue::from_bytes(value.as_bytes()).unwrap());
        }
        origins.check(&headers)
    }

    #[test]
    fn own_names_pass_on_any_port_and_everything_else_is_refused() {
        let origins = Origins::new(["localhost", "127.0.0.1", "::1", "Tools.Example:8443"]);
        for good in [
            "http://localhost:6274",
            "http://LOCALHOST",
            "https://127.0.0.1:8765",
            "http://[::1]:3000",
            "http://[0:0::1]",
            "https://tools.example",
            "http://tools.example:1",
        ] {
            assert_eq!(check(&origins, &[good]), Ok(()), "{good}");
        }
        for bad in [
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example:8765",
            "null",
            "",
            "file://localhost",
            "ftp://localhost",
            "http://localhost/path",
            "http://localhost/",
            "http://user@localhost",
            "localhost",
            "http://[::2]",
            "http://127.0.0.2",
        ] {
            let refused = check(&origins, &[bad]).unwrap_err();
            assert_eq!(refused.status(), 403, "{bad}");
            assert_eq!(refused, Refusal::BadOrigin { origin: bad.to_string() });
        }
        assert!(check(&origins, &["http://localhost", "http://evil.example"]).is_err(), "every Origin header must pass");
        assert_eq!(check(&origins, &[]), Ok(()), "no Origin: not a browser");
        let refused = check(&origins, &["http://\u{e9}vil"]);
        assert!(refused.is_err());
    }
}
