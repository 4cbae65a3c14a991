//! A build without the embedded backend has no reader of the gateway's state directory:
//! `OnDisk` has no value, so every history is asked of the gateway (on protocol 4 that is
//! its display projection, not the raw transcript the embedded reader gives).

use super::super::*;
use crate::config::DeploymentConfig;

/// No reader can exist in this build.
pub(super) enum OnDisk {}

impl OnDisk {
    pub fn open(_url: &str, _state_dir: Option<&str>, _config: &DeploymentConfig) -> Option<OnDisk> {
        None
    }

    pub fn remember(&self, _rows: &[SessionRow], _canonical: impl Fn(&str) -> String) {
        match *self {}
    }

    pub fn histories(&self, _params: &[HistoryParams], _canonical: impl Fn(&str) -> String) -> Vec<Option<History>> {
        match *self {}
    }

    pub fn history(
        &self,
        _params: &HistoryParams,
        _canonical: impl Fn(&str) -> String,
        _probe: impl FnOnce() -> Option<Vec<SessionRow>>,
    ) -> Option<History> {
        match *self {}
    }
}
