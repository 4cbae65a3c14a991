// The one way to put the N15 guard in front of a component, with `wac-graph`.
// Shared with `include!` by the build scripts of `host/` (the guarded tools, composed at
// build time) and `tests/` (the guarded hostile guest), and by the host library, which
// composes a component it is given at run time (`--component`) the same way.

/// Composes `guard` in front of `tools`: the guard's exported `gateway` is given to the
/// tools as their `gateway` import; every other import of both (the host's gateway, the
/// spawn tree, the host services, inert WASI) stays an import of the composition, one
/// import per name; the composition exports what `tools` exports, and the guard's set-up.
/// Fails naming the step that failed.
fn compose_guarded(guard: &[u8], tools: &[u8]) -> Result<Vec<u8>, String> {
    use wac_graph::{types::Package, CompositionGraph, EncodeOptions};

    const GATEWAY: &str = "openclaw:session-tools/gateway@0.2.0";
    const GUARD: &str = "openclaw:session-tools/guard@0.2.0";
    let fail = |what: &str, e: &dyn std::fmt::Display| format!("composing the N15 guard in front of the tools: {what}: {e}");
    let mut graph = CompositionGraph::new();
    let guard_package =
        Package::from_bytes("openclaw:session-guard", None, guard.to_vec(), graph.types_mut()).map_err(|e| fail("reading the guard", &e))?;
    let guard_package = graph.register_package(guard_package).map_err(|e| fail("registering the guard", &e))?;
    let tools_package =
        Package::from_bytes("openclaw:session-tools", None, tools.to_vec(), graph.types_mut()).map_err(|e| fail("reading the tools", &e))?;
    let tools_exports: Vec<String> = graph.types()[tools_package.ty()].exports.keys().cloned().collect();
    let tools_package = graph.register_package(tools_package).map_err(|e| fail("registering the tools", &e))?;

    let guard_instance = graph.instantiate(guard_package);
    let tools_instance = graph.instantiate(tools_package);
    let gateway = graph.alias_instance_export(guard_instance, GATEWAY).map_err(|e| fail("the guard's gateway export", &e))?;
    graph.set_instantiation_argument(tools_instance, GATEWAY, gateway).map_err(|e| fail("giving the tools the guard's gateway", &e))?;
    for name in tools_exports {
        let export = graph.alias_instance_export(tools_instance, &name).map_err(|e| fail(&format!("the tools' export {name}"), &e))?;
        graph.export(export, &name).map_err(|e| fail(&format!("exporting {name}"), &e))?;
    }
    let setup = graph.alias_instance_export(guard_instance, GUARD).map_err(|e| fail("the guard's set-up export", &e))?;
    graph.export(setup, GUARD).map_err(|e| fail("exporting the guard's set-up", &e))?;
    graph.encode(EncodeOptions::default()).map_err(|e| fail("encoding", &e))
}
