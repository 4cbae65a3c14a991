//! The gateway a state directory's config describes (`gateway.port`, `gateway.bind`,
//! `gateway.tls`, `gateway.auth`), as OpenClaw's own CLI finds it
//! (`openclaw gateway call` reads the same config and variables).

use serde_json::Value;

use super::{LiveGateway, LiveGatewayBuilder};
use crate::config::DeploymentConfig;
use crate::{Error, Result};

/// OpenClaw's default port (`DEFAULT_GATEWAY_PORT`).
pub const DEFAULT_PORT: u16 = 18789;

/// Reads an environment variable.
type Env<'a> = &'a dyn Fn(&str) -> Option<String>;

/// The first of these environment variables that is set and not empty.
fn first(env: Env<'_>, names: &[&str]) -> Option<String> {
    names.iter().find_map(|n| env(n).filter(|v| !v.trim().is_empty()))
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

impl LiveGateway {
    /// The gateway the config of a state directory runs: its port (`OPENCLAW_GATEWAY_PORT`
    /// / `CLAWDBOT_GATEWAY_PORT`, else `gateway.port`, else 18789) on loopback (or the
    /// custom bind host), `wss://` when `gateway.tls.enabled`, and its secret
    /// (`OPENCLAW_GATEWAY_TOKEN` / `CLAWDBOT_GATEWAY_TOKEN`, else `gateway.auth.token`; in
    /// password mode the `…_PASSWORD` variables, else `gateway.auth.password`). A secret
    /// given to the builder afterwards replaces the one found here.
    pub fn local(config: &DeploymentConfig) -> Result<LiveGatewayBuilder> {
        local_with(config, &|name| std::env::var(name).ok())
    }
}

fn local_with(config: &DeploymentConfig, env: Env<'_>) -> Result<LiveGatewayBuilder> {
    let origin = || config.path.as_ref().map_or_else(|| "the config".to_string(), |p| p.display().to_string());
    let gateway = config.raw.get("gateway");
    let get = |path: &[&str]| path.iter().try_fold(gateway?, |v, k| v.get(*k));
    let port = match first(env, &["OPENCLAW_GATEWAY_PORT", "CLAWDBOT_GATEWAY_PORT"]) {
        Some(text) => text
            .trim()
            .parse::<u16>()
            .ok()
            .filter(|p| *p > 0)
            .ok_or_else(|| Error::Gateway(format!("the gateway port in the environment is not a port number: {text:?}")))?,
        None => match get(&["port"]) {
            None => DEFAULT_PORT,
            Some(value) => value
                .as_u64()
                .and_then(|p| u16::try_from(p).ok())
                .filter(|p| *p > 0)
                .ok_or_else(|| Error::Config { origin: origin(), message: format!("gateway.port is not a port number: {value}") })?,
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
    let mut builder = LiveGateway::builder(format!("{scheme}://{host}:{port}"));
    let password =
        first(env, &["OPENCLAW_GATEWAY_PASSWORD", "CLAWDBOT_GATEWAY_PASSWORD"]).or_else(|| config_text(env, get(&["auth", "password"])));
    let token = first(env, &["OPENCLAW_GATEWAY_TOKEN", "CLAWDBOT_GATEWAY_TOKEN"]).or_else(|| config_text(env, get(&["auth", "token"])));
    // `gateway.auth.mode`, else password when one is configured, else token.
    let mode = get(&["auth", "mode"]).and_then(Value::as_str).map(str::to_string);
    let use_password = match mode.as_deref() {
        Some("password") => true,
        Some("token") => false,
        _ => password.is_some() && token.is_none(),
    };
    builder = match (use_password, token, password) {
        (true, _, Some(password)) => builder.with_password(password),
        (false, Some(token), _) => builder.with_token(token),
        (_, Some(token), None) => builder.with_token(token),
        (_, None, Some(password)) => builder.with_password(password),
        (_, None, None) => builder,
    };
    Ok(builder)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn builder(config: &str) -> LiveGatewayBuilder {
        local_with(&DeploymentConfig::parse(config, "test").unwrap(), &no_env).unwrap()
    }

    #[test]
    fn the_configs_gateway_is_found() {
        let b = builder(r#"{"gateway": {"port": 19001, "auth": {"token": "abc"}}}"#);
        assert_eq!(b.url, "ws://127.0.0.1:19001");
        assert_eq!(b.auth, Some(super::super::frames::Auth::Token("abc".into())));
        let b = builder(r#"{"gateway": {"tls": {"enabled": true}, "auth": {"mode": "password", "password": "pw", "token": "t"}}}"#);
        assert_eq!(b.url, "wss://127.0.0.1:18789");
        assert_eq!(b.auth, Some(super::super::frames::Auth::Password("pw".into())));
        let b = builder(r#"{"gateway": {"bind": "custom", "customBindHost": "10.0.0.5"}}"#);
        assert_eq!(b.url, "ws://10.0.0.5:18789");
        assert_eq!(b.auth, None);
        let err = local_with(&DeploymentConfig::parse(r#"{"gateway": {"port": "x"}}"#, "test").unwrap(), &no_env).unwrap_err();
        assert!(err.to_string().contains("gateway.port is not a port number"), "{err}");
        let env = |name: &str| match name {
            "CLAWDBOT_GATEWAY_PORT" => Some("19002".to_string()),
            "SECRET" => Some("from-env".to_string()),
            _ => None,
        };
        let b = local_with(&DeploymentConfig::parse(r#"{"gateway": {"port": 1, "auth": {"token": "${SECRET}"}}}"#, "test").unwrap(), &env)
            .unwrap();
        assert_eq!((b.url.as_str(), b.auth), ("ws://127.0.0.1:19002", Some(super::super::frames::Auth::Token("from-env".into()))));
    }
}
