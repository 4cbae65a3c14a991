//! The composition of the guard in front of the tools (`build-support/compose.rs`): what it
//! imports and exports, and its errors on what a `--component` given at run time can be.

use std::collections::BTreeSet;

use wasmparser::{Parser, Payload, Validator};

use super::{compose_guarded, GUARDED_COMPONENT, GUARD_COMPONENT};

/// A component's own imports and exports, by name (not those of components nested in it).
#[derive(Debug, Default, PartialEq)]
pub(crate) struct WorldNames {
    pub(crate) imports: BTreeSet<String>,
    pub(crate) exports: BTreeSet<String>,
}

pub(crate) fn world_names(component: &[u8]) -> WorldNames {
    let mut names = WorldNames::default();
    // `parse_all` walks into nested modules and components too: depth 0 is the component's own.
    let mut depth = 0u32;
    for payload in Parser::new(0).parse_all(component) {
        match payload.expect("a component") {
            Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => depth += 1,
            Payload::End(_) => depth = depth.saturating_sub(1),
            Payload::ComponentImportSection(imports) if depth == 0 => {
                names.imports.extend(imports.into_iter().map(|i| i.expect("an import").name.name.to_string()));
            }
            Payload::ComponentExportSection(exports) if depth == 0 => {
                names.exports.extend(exports.into_iter().map(|e| e.expect("an export").name.name.to_string()));
            }
            _ => {}
        }
    }
    names
}

const GATEWAY: &str = "openclaw:session-tools/gateway@0.2.0";
const SETUP: &str = "openclaw:session-tools/guard@0.2.0";

#[test]
fn the_guard_and_the_tools_compose_into_one_valid_component() {
    let composed = compose_guarded(GUARD_COMPONENT, crate::COMPONENT).unwrap();
    Validator::new().validate_all(&composed).unwrap();
    // The build composes the built-in tools with this same function.
    assert!(composed == GUARDED_COMPONENT, "the build's composition differs from this one");

    let (guard, tools, composed) = (world_names(GUARD_COMPONENT), world_names(crate::COMPONENT), world_names(&composed));
    // One import per name: the guard's gateway import is the host's, the same name the
    // tools import theirs under (which the guard's export answers).
    assert!(guard.imports.contains(GATEWAY) && tools.imports.contains(GATEWAY));
    assert_eq!(composed.imports, &guard.imports | &tools.imports);
    for name in ["openclaw:session-tools/tree@0.2.0", "openclaw:session-tools/audit@0.2.0", "openclaw:session-tools/host@0.2.0"] {
        assert!(composed.imports.contains(name), "{name}: {:?}", composed.imports);
    }
    let mut exports = tools.exports.clone();
    exports.insert(SETUP.to_string());
    assert_eq!(composed.exports, exports);
    assert!(!tools.exports.contains(SETUP) && tools.exports.len() >= 4, "{:?}", tools.exports);
}

/// What a `--component` given at run time can be besides a component of the tools' world:
/// each is refused naming the step and what was wrong, never a panic.
#[test]
fn what_is_not_the_tools_is_refused_clearly() {
    let refused = |guard: &[u8], tools: &[u8]| compose_guarded(guard, tools).expect_err("refused");
    let error = refused(GUARD_COMPONENT, b"garbage, not WebAssembly");
    assert!(error.starts_with("composing the N15 guard in front of the tools: reading the tools: "), "{error}");
    assert!(error.contains("not a WebAssembly component"), "{error}");

    let core_module = b"\0asm\x01\0\0\0";
    let error = refused(GUARD_COMPONENT, core_module);
    assert!(error.contains("reading the tools: this is a core WebAssembly module, not a component"), "{error}");

    let truncated = &crate::COMPONENT[..crate::COMPONENT.len() / 2];
    let error = refused(GUARD_COMPONENT, truncated);
    assert!(error.contains("reading the tools: not a valid component: "), "{error}");

    // A component that imports no gateway: nothing for the guard to stand in front of.
    let error = refused(GUARD_COMPONENT, crate::WIRE_COMPONENT);
    assert!(error.contains(&format!("reading the tools: they do not import a `{GATEWAY}` instance")), "{error}");

    // A "guard" without the gateway export (the tools themselves).
    let error = refused(crate::COMPONENT, crate::COMPONENT);
    assert!(error.contains(&format!("reading the guard: it exports no `{GATEWAY}` instance")), "{error}");

    // Tools that export the guard's set-up themselves (an already guarded component).
    let error = refused(GUARD_COMPONENT, GUARDED_COMPONENT);
    assert!(error.contains(&format!("reading the tools: they export `{SETUP}`")), "{error}");
}
