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

/// A component of imported instances, each exporting functions `func()` by the names given,
/// that exports some of them again: enough of a guard or of tools for the composition.
fn component_of(imports: &[(&str, &[&str])], exports: &[(&str, u32)]) -> Vec<u8> {
    use wasm_encoder::{
        Component, ComponentExportKind, ComponentExportSection, ComponentImportSection, ComponentTypeRef, ComponentTypeSection,
        ComponentValType, InstanceType,
    };
    let mut types = ComponentTypeSection::new();
    for (_, funcs) in imports {
        let mut instance = InstanceType::new();
        instance.ty().function().params([] as [(&str, ComponentValType); 0]).result(None);
        for func in *funcs {
            instance.export(*func, ComponentTypeRef::Func(0));
        }
        types.instance(&instance);
    }
    let mut import_section = ComponentImportSection::new();
    for (index, (name, _)) in imports.iter().enumerate() {
        import_section.import(*name, ComponentTypeRef::Instance(index as u32));
    }
    let mut export_section = ComponentExportSection::new();
    for (name, instance) in exports {
        export_section.export(*name, ComponentExportKind::Instance, *instance, None);
    }
    let mut component = Component::new();
    component.section(&types).section(&import_section).section(&export_section);
    component.finish()
}

/// What the composition's import `name` exports, by name.
fn import_exports(component: &[u8], name: &str) -> BTreeSet<String> {
    let types = Validator::new().validate_all(component).expect("a valid component");
    let types = types.as_ref();
    let item = types.component_item_for_import(name).expect("the import");
    let wasmparser::component_types::ComponentEntityType::Instance(id) = item.ty else { panic!("{name} is not an instance") };
    types[id].exports.keys().map(|k| k.to_string()).collect()
}

/// A name both import is declared as the component that uses all the other does: the
/// guard's gateway (it forwards every function), the tools' stream (a guest may write more
/// than the guard does); a pair where neither covers the other is refused, naming both sides.
#[test]
fn a_shared_import_takes_the_declaration_that_covers_the_other() {
    const STREAMS: &str = "test:io/streams@0.1.0";
    const TREE: &str = "openclaw:session-tools/tree@0.2.0";
    let guard = component_of(&[(GATEWAY, &["a", "b"]), (STREAMS, &["read"]), (TREE, &["t"])], &[(GATEWAY, 0), (SETUP, 2)]);
    let tools = component_of(&[(GATEWAY, &["a"]), (STREAMS, &["read", "write"])], &[("test:tools/tools@0.1.0", 1)]);
    let composed = compose_guarded(&guard, &tools).unwrap();
    assert_eq!(import_exports(&composed, GATEWAY), BTreeSet::from(["a".to_string(), "b".to_string()]));
    assert_eq!(import_exports(&composed, STREAMS), BTreeSet::from(["read".to_string(), "write".to_string()]));
    assert_eq!(world_names(&composed).imports, BTreeSet::from([GATEWAY.to_string(), STREAMS.to_string(), TREE.to_string()]));

    let tools = component_of(&[(GATEWAY, &["a", "c"])], &[("test:tools/tools@0.1.0", 0)]);
    let error = compose_guarded(&guard, &tools).expect_err("refused");
    assert!(error.contains(&format!("`{GATEWAY}` cannot be one import: the guard uses b")), "{error}");
    assert!(error.contains("and the tools c"), "{error}");
}
