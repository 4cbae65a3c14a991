//! The gateway on this machine a deployment config describes (`gateway.port`, `gateway.bind`,
//! `gateway.tls`, `gateway.auth`), as OpenClaw's own command line finds it: the Rust host's
//! live client connects to it, and so does the plugin on OpenClaw 2026.5 and later (as the
//! local backend client, whose shared secret a gateway accepts on loopback).

use serde_json::Value;

/// OpenClaw's default port (`DEFAULT_GATEWAY_PORT`).
pub const DEFAULT_PORT: u16 = 18789;

/// The prefixes of the gateway's own environment variables, in the order they are read
/// (the project's names over the years: `OPENCLAW_GATEWAY_PORT`, `CLAWDBOT_…`, `MOLTBOT_…`).
const PREFIXES: [&str; 3] = ["OPENCLAW", "CLAWDBOT", "MOLTBOT"];

/// The shared secret the gateway asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Secret {
    /// `gateway.auth.token`.
    Token(String),
    /// `gateway.auth.password`.
    Password(String),
}

/// Where the gateway listens, and its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalGateway {
    /// `ws://` or `wss://`, host and port.
    pub url: String,
    /// The secret to connect with, when the config or the environment has one.
    pub secret: Option<Secret>,
}

/// Why a config describes no gateway one can connect to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LocalGatewayError {
    /// The port in the environment is not a port number: its text.
    PortInEnvironment(String),
    /// `gateway.port` is not a port number: its JSON.
    PortInConfig(String),
}

impl std::fmt::Display for LocalGatewayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LocalGatewayError::PortInEnvironment(text) => write!(f, "the gateway port in the environment is not a port number: {text:?}"),
            LocalGatewayError::PortInConfig(json) => write!(f, "gateway.port is not a port number: {json}"),
        }
    }
}

impl std::error::Error for LocalGatewayError {}

/// Reads an environment variable.
pub type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The first of the gateway's variables named `<prefix>_GATEWAY_<name>` that is set and not empty.
fn gateway_variable(env: Env<'_>, name: &str) -> Option<String> {
    PREFIXES.iter().find_map(|prefix| env(&format!("{prefix}_GATEWAY_{name}")).filter(|v| !v.trim().is_empty()))
}

/// A config string, with a whole-value `${VAR}` taken from the environment (OpenClaw
/// substitutes such references when it loads its config).
fn config_text(env: Env<'_>, value: Option<&Value>) -> Option<String> {
    let text = value?.as_str()?.trim();
    let var = text.strip_prefix("${").and_then(|rest| rest.strip_suffix('}'));
    match var {
        Some(name) => env(name).filter(|v| !v.is_empty()),
        None => (!text.is_empty()).then(|| text.to_string()),
    }
}

/// The gateway `config` (a deployment config) runs on this machine: its port (the
/// `…_GATEWAY_PORT` variable, else `gateway.port`, else 18789) on loopback (or the custom
/// bind host), `wss://` when `gateway.tls.enabled`, and its secret (the `…_GATEWAY_TOKEN`
/// variable, else `gateway.auth.token`; in password mode the `…_PASSWORD` variable, else
/// `gateway.auth.password`).
pub fn find(config: &Value, env: Env<'_>) -> Result<LocalGateway, LocalGatewayError> {
    let gateway = config.get("gateway");
    let get = |path: &[&str]| path.iter().try_fold(gateway?, |v, k| v.get(*k));
    let port = match gateway_variable(env, "PORT") {
        Some(text) => text.trim().parse::<u16>().ok().filter(|p| *p > 0).ok_or(LocalGatewayError::PortInEnvironment(text))?,
        None => match get(&["port"]) {
            None => DEFAULT_PORT,
            Some(value) => value
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .filter(|p| *p > 0)
                .ok_or_else(|| LocalGatewayError::PortInConfig(value.to_string()))?,
        },
    };
    let host = match get(&["bind"]).and_then(Value::as_str) {
        Some("custom") => config_text(env, get(&["customBindHost"])).filter(|h| h != "0.0.0.0").unwrap_or_else(|| "127.0.0.1".into()),
        // loopback, lan (0.0.0.0 takes loopback too), auto, tailnet (loopback when no
        // tailnet address is bound): this machine's loopback.
        _ => "127.0.0.1".into(),
    };
    let scheme = if get(&["tls", "enabled"]).and_then(Value::as_bool) == Some(true) { "wss" } else { "ws" };
    let host = if host.contains(':') && !host.starts_with('[') { format!("[{host}]") } else { host };
    let password = gateway_variable(env, "PASSWORD").or_else(|| config_text(env, get(&["auth", "password"])));
    let token = gateway_variable(env, "TOKEN").or_else(|| config_text(env, get(&["auth", "token"])));
    // `gateway.auth.mode`, else password when only a password is configured, else token.
    let use_password = match get(&["auth", "mode"]).and_then(Value::as_str) {
        Some("password") => true,
        Some("token") => false,
        _ => password.is_some() && token.is_none(),
    };
    let secret = match (use_password, token, password) {
        (true, _, Some(password)) | (_, None, Some(password)) => Some(Secret::Password(password)),
        (_, Some(token), _) => Some(Secret::Token(token)),
        (_, None, None) => None,
    };
    Ok(LocalGateway { url: format!("{scheme}://{host}:{port}"), secret })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn found(config: &str, env: Env<'_>) -> Result<LocalGateway, LocalGatewayError> {
        find(&serde_json::from_str(config).unwrap(), env)
    }

    #[test]
    fn the_configs_gateway_is_found() {
        let g = found(r#"{"gateway": {"port": 19001, "auth": {"token": "abc"}}}"#, &no_env).unwrap();
        assert_eq!((g.url.as_str(), g.secret), ("ws://127.0.0.1:19001", Some(Secret::Token("abc".into()))));
        let g = found(r#"{"gateway": {"tls": {"enabled": true}, "auth": {"mode": "password", "password": "pw", "token": "t"}}}"#, &no_env)
            .unwrap();
        assert_eq!((g.url.as_str(), g.secret), ("wss://127.0.0.1:18789", Some(Secret::Password("pw".into()))));
        let g = found(r#"{"gateway": {"bind": "custom", "customBindHost": "10.0.0.5"}}"#, &no_env).unwrap();
        assert_eq!((g.url.as_str(), g.secret), ("ws://10.0.0.5:18789", None));
        let g = found(r#"{"gateway": {"bind": "custom", "customBindHost": "::1"}}"#, &no_env).unwrap();
        assert_eq!(g.url, "ws://[::1]:18789");
        let g = found(r#"{}"#, &no_env).unwrap();
        assert_eq!((g.url.as_str(), g.secret), ("ws://127.0.0.1:18789", None));
    }

    #[test]
    fn the_environment_comes_before_the_config() {
        let env = |name: &str| match name {
            "CLAWDBOT_GATEWAY_PORT" => Some("19002".to_string()),
            "MOLTBOT_GATEWAY_PASSWORD" => Some("pw".to_string()),
            "SECRET" => Some("from-env".to_string()),
            _ => None,
        };
        let g = found(r#"{"gateway": {"port": 1, "auth": {"token": "${SECRET}"}}}"#, &env).unwrap();
        assert_eq!((g.url.as_str(), g.secret), ("ws://127.0.0.1:19002", Some(Secret::Token("from-env".into()))));
        let g = found(r#"{"gateway": {"auth": {"mode": "password"}}}"#, &env).unwrap();
        assert_eq!(g.secret, Some(Secret::Password("pw".into())));
    }

    #[test]
    fn a_port_that_is_not_one_is_named() {
        let err = found(r#"{"gateway": {"port": "x"}}"#, &no_env).unwrap_err();
        assert_eq!(err.to_string(), r#"gateway.port is not a port number: "x""#);
        let env = |name: &str| (name == "OPENCLAW_GATEWAY_PORT").then(|| "70000".to_string());
        let err = found(r#"{}"#, &env).unwrap_err();
        assert_eq!(err, LocalGatewayError::PortInEnvironment("70000".into()));
    }
}
