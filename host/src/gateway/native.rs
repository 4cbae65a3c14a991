//! A host gateway as the contract's own `Gateway` port, so the tool logic can run natively
//! over it: for the benchmark's baseline and for tests that compare the native logic with
//! the component. The host itself never runs tool logic natively.

use session_tools_contract as native;

use super::Gateway;

/// A host [`Gateway`] as the contract's `session_tools_contract::Gateway`: what the tool
/// logic (the `session-tools-guest` crate, compiled into the caller's own program) calls,
/// so the same tools run natively over any host gateway, as the benchmark's baseline and the
/// property tests run them beside the component. Every method is passed on unchanged.
pub struct Native<'a>(pub &'a dyn Gateway);

impl native::Gateway for Native<'_> {
    fn sessions_list(&self, p: &native::ListParams) -> native::GatewayResult<native::SessionList> {
        self.0.sessions_list(p)
    }
    fn sessions_resolve(&self, p: &native::ResolveParams) -> native::GatewayResult<String> {
        self.0.sessions_resolve(p)
    }
    fn chat_history(&self, p: &native::HistoryParams) -> native::GatewayResult<native::History> {
        self.0.chat_history(p)
    }
    fn chat_histories(&self, p: &[native::HistoryParams]) -> Vec<native::GatewayResult<native::History>> {
        self.0.chat_histories(p)
    }
    fn agent(&self, p: &native::AgentParams) -> native::GatewayResult<native::AgentAccepted> {
        self.0.agent(p)
    }
    fn agent_wait(&self, p: &native::WaitParams) -> native::GatewayResult<native::WaitResult> {
        self.0.agent_wait(p)
    }
    fn send(&self, p: &native::SendParams) -> native::GatewayResult<()> {
        self.0.send(p)
    }
    fn sessions_patch(&self, p: &native::PatchParams) -> native::GatewayResult<()> {
        self.0.sessions_patch(p)
    }
    fn sessions_delete(&self, p: &native::DeleteParams) -> native::GatewayResult<()> {
        self.0.sessions_delete(p)
    }
}
