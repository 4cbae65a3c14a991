//! The gateway a state directory's config describes (`gateway.port`, `gateway.bind`,
//! `gateway.tls`, `gateway.auth`), as OpenClaw's own CLI finds it
//! (`openclaw gateway call` reads the same config and variables).

use session_tools_deployment::local_gateway::{self, LocalGatewayError, Secret};

use super::{LiveGateway, LiveGatewayBuilder};
use crate::config::DeploymentConfig;
use crate::{Error, Result};

/// Reads an environment variable.
type Env<'a> = local_gateway::Env<'a>;

impl LiveGateway {
    /// The gateway the config of a state directory runs: its port (`OPENCLAW_GATEWAY_PORT`,
    /// `CLAWDBOT_…` or `MOLTBOT_…`, else `gateway.port`, else 18789) on loopback (or the
    /// custom bind host), `wss://` when `gateway.tls.enabled`, and its secret (the
    /// `…_GATEWAY_TOKEN` variables, else `gateway.auth.token`; in password mode the
    /// `…_PASSWORD` variables, else `gateway.auth.password`). A secret given to the builder
    /// afterwards replaces the one found here.
    pub fn local(config: &DeploymentConfig) -> Result<LiveGatewayBuilder> {
        local_with(config, &|name| std::env::var(name).ok())
    }
}

/// The rule is the deployment crate's, which the plugin asks too.
fn local_with(config: &DeploymentConfig, env: Env<'_>) -> Result<LiveGatewayBuilder> {
    let found = local_gateway::find(&config.raw, env).map_err(|e| match e {
        LocalGatewayError::PortInEnvironment(_) => Error::Gateway(e.to_string()),
        LocalGatewayError::PortInConfig(_) => Error::Config {
            origin: config.path.as_ref().map_or_else(|| "the config".to_string(), |p| p.display().to_string()),
            message: e.to_string(),
        },
    })?;
    let builder = LiveGateway::builder(found.url);
    Ok(match found.secret {
        Some(Secret::Token(token)) => builder.with_token(token),
        Some(Secret::Password(password)) => builder.with_password(password),
        None => builder,
    })
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
