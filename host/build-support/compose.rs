// The one way to put the N15 guard in front of a component. Shared with `include!` by the
// build script of `host/` (the guarded tools, composed at build time) and by the host library,
// which composes a component it is given at run time (`--component`) the same way.
//
// Written directly on the wasm tools wasmtime itself compiles (`wasmparser` reads,
// `wasm-encoder` writes, the same versions), not on a composition library: `wac-graph` brought
// a second copy of those tools and their registry support into the build, a large part of a
// new user's first build. What is composed here is one fixed shape, so it is short to write:
//
//   (component
//     <the imports of both, one per name, with the types they are declared with>
//     (component $guard …) (component $tools …)      ; both unchanged
//     (instance $g (instantiate $guard <its imports, by name>))
//     (instance $t (instantiate $tools <its imports, by name; `gateway`: $g's gateway>))
//     (export <each export of $t>) (export "…/guard@0.2.0" $g's set-up))
//
// Declaring an import needs its type, and that type refers to the types and instances declared
// before it. Components made by wit-component (and any whose imports come before their own
// definitions) declare all that in a head of type, import and alias sections; that head is
// re-encoded into the composition with its indices moved to where its items land there
// (`wasm_encoder::reencode`). A component whose imports come later is refused, naming why.
// The result is validated before it is returned: a component given at run time is untrusted,
// and a mismatch must be an error here, not a trap in wasmtime later.

/// Composes `guard` in front of `tools`: the guard's exported `gateway` is given to the
/// tools as their `gateway` import; every other import of both (the host's gateway, the
/// spawn tree, the host services, inert WASI) stays an import of the composition, one
/// import per name; the composition exports what `tools` exports, and the guard's set-up.
/// Fails naming the step that failed.
fn compose_guarded(guard: &[u8], tools: &[u8]) -> Result<Vec<u8>, String> {
    guard_composition::compose(guard, tools).map_err(|e| format!("composing the N15 guard in front of the tools: {e}"))
}

mod guard_composition {
    use std::collections::{BTreeSet, HashMap};
    use std::convert::Infallible;

    use wasm_encoder::reencode::{Error as ReencodeError, Reencode, ReencodeComponent};
    use wasm_encoder::{
        Alias, Component, ComponentAliasSection, ComponentExportKind, ComponentExportSection, ComponentImportSection,
        ComponentInstanceSection, ComponentSectionId, ComponentTypeSection, RawSection,
    };
    use wasmparser::{
        ComponentAlias, ComponentExternName, ComponentExternalKind, ComponentImport, ComponentType, ComponentTypeRef,
        InstanceTypeDeclaration, Parser, Payload, Validator,
    };

    /// The interface the guard stands in front of: imported by the tools, exported by the guard.
    const GATEWAY: &str = "openclaw:session-tools/gateway@0.2.0";
    /// The guard's set-up (who the caller is), exported by the composition beside the tools.
    const GUARD: &str = "openclaw:session-tools/guard@0.2.0";

    pub(super) fn compose(guard: &[u8], tools: &[u8]) -> Result<Vec<u8>, String> {
        let guard = Part::read("reading the guard", guard)?;
        let tools = Part::read("reading the tools", tools)?;
        if !guard.exports_instance(GATEWAY) {
            return Err(format!("reading the guard: it exports no `{GATEWAY}` instance to stand in front of the tools"));
        }
        if !guard.exports_instance(GUARD) {
            return Err(format!("reading the guard: it exports no `{GUARD}` instance (its set-up)"));
        }
        if let Some((name, _)) = tools.exports.iter().find(|(name, _)| name.name == GUARD) {
            return Err(format!("reading the tools: they export `{}`, the name of the guard's set-up", name.name));
        }

        // One import per name has one type: for a name both import, the composition declares it
        // as the component whose declaration asks for all the other's does (wit-component
        // declares only what a component uses: the guard all of the gateway, a guest perhaps
        // more of WASI), and instantiates the other with it.
        let chosen = choose_declarations(&guard, &tools)?;
        let mut outer = Outer::default();
        let (guard_imports, tools_imports) = outer.declare_heads(&guard, &tools, &chosen)?;
        if !tools_imports.iter().any(|(name, kind, _)| name == GATEWAY && *kind == ComponentExportKind::Instance) {
            return Err(format!(
                "reading the tools: they do not import a `{GATEWAY}` instance, so the guard has nothing to stand in front of"
            ));
        }

        let guard_component = outer.nested(guard.bytes);
        let tools_component = outer.nested(tools.bytes);
        let guard_instance = outer.instantiate(guard_component, &guard_imports);
        let gateway = outer.alias(guard_instance, ComponentExportKind::Instance, GATEWAY);
        let tools_args: Vec<(String, ComponentExportKind, u32)> = tools_imports
            .into_iter()
            .map(|(name, kind, index)| if name == GATEWAY { (name, kind, gateway) } else { (name, kind, index) })
            .collect();
        let tools_instance = outer.instantiate(tools_component, &tools_args);

        let mut exports = ComponentExportSection::new();
        for (name, kind) in &tools.exports {
            let kind = ComponentExportKind::from(*kind);
            let index = outer.alias(tools_instance, kind, name.name);
            exports.export(*name, kind, index, None);
        }
        let setup = outer.alias(guard_instance, ComponentExportKind::Instance, GUARD);
        exports.export(GUARD, ComponentExportKind::Instance, setup, None);
        outer.component.section(&exports);

        let bytes = outer.component.finish();
        Validator::new().validate_all(&bytes).map_err(|e| format!("checking the composition: {e}"))?;
        Ok(bytes)
    }

    /// Which of the two declares each name both import (0: the guard, 1: the tools).
    fn choose_declarations(guard: &Part<'_>, tools: &Part<'_>) -> Result<HashMap<String, usize>, String> {
        let mut chosen = HashMap::new();
        for (name, guard_exports) in &guard.declared {
            let Some(tools_exports) = tools.declared.get(name) else { continue };
            let by = match (guard_exports, tools_exports) {
                (Some(g), Some(t)) if g.is_superset(t) => 0,
                (Some(g), Some(t)) if t.is_superset(g) => 1,
                (Some(g), Some(t)) => {
                    let only = |a: &BTreeSet<String>, b: &BTreeSet<String>| a.difference(b).cloned().collect::<Vec<_>>().join(", ");
                    return Err(format!(
                        "`{name}` cannot be one import: the guard uses {} of it, which the tools do not, and the tools {}, which the guard does not",
                        only(g, t),
                        only(t, g)
                    ));
                }
                _ => 0,
            };
            chosen.insert(name.clone(), by);
        }
        Ok(chosen)
    }

    /// One of the two components, read: its import head and its exports.
    struct Part<'a> {
        bytes: &'a [u8],
        head: Vec<HeadItem<'a>>,
        /// Each import, by name: the names its instance type exports (`None`: not an
        /// instance declared in the head).
        declared: HashMap<String, Option<BTreeSet<String>>>,
        exports: Vec<(ComponentExternName<'a>, ComponentExternalKind)>,
    }

    /// An item of a component's head: what its imports' types are declared with.
    enum HeadItem<'a> {
        Type(ComponentType<'a>),
        Import(ComponentImport<'a>),
        Alias(ComponentAlias<'a>),
    }

    impl<'a> Part<'a> {
        /// Checks that `bytes` is a valid component (before any index in it is trusted), and
        /// reads its head and exports. `step` names the step in errors.
        fn read(step: &str, bytes: &'a [u8]) -> Result<Part<'a>, String> {
            if Parser::is_core_wasm(bytes) {
                return Err(format!("{step}: this is a core WebAssembly module, not a component (make one with `wasm-tools component new` or a wasm32-wasip2 build)"));
            }
            if !Parser::is_component(bytes) {
                return Err(format!("{step}: this is not a WebAssembly component (it does not start with a component's header)"));
            }
            Validator::new().validate_all(bytes).map_err(|e| format!("{step}: not a valid component: {e}"))?;
            let parse = |e: wasmparser::BinaryReaderError| format!("{step}: {e}");
            let mut part = Part { bytes, head: Vec::new(), declared: HashMap::new(), exports: Vec::new() };
            // The export names of each instance type the head defines, by type index.
            let mut instance_types: HashMap<u32, BTreeSet<String>> = HashMap::new();
            let mut types = 0u32;
            let mut in_head = true;
            // `parse_all` also walks into nested modules and components: only the outermost
            // level (depth 0) is this component's own.
            let mut depth = 0u32;
            for payload in Parser::new(0).parse_all(bytes) {
                let payload = payload.map_err(parse)?;
                match payload {
                    Payload::ModuleSection { .. } | Payload::ComponentSection { .. } => {
                        depth += 1;
                        in_head = false;
                        continue;
                    }
                    Payload::End(_) => {
                        depth = depth.saturating_sub(1);
                        continue;
                    }
                    _ if depth > 0 => continue,
                    Payload::Version { .. } | Payload::CustomSection(_) => {}
                    Payload::ComponentTypeSection(reader) if in_head => {
                        for ty in reader {
                            let ty = ty.map_err(parse)?;
                            if let ComponentType::Instance(decls) = &ty {
                                let names = decls.iter().filter_map(|d| match d {
                                    InstanceTypeDeclaration::Export { name, .. } => Some(name.name.to_string()),
                                    _ => None,
                                });
                                instance_types.insert(types, names.collect());
                            }
                            types += 1;
                            part.head.push(HeadItem::Type(ty));
                        }
                    }
                    Payload::ComponentImportSection(reader) if in_head => {
                        for import in reader {
                            let import = import.map_err(parse)?;
                            let exports = match import.ty {
                                ComponentTypeRef::Instance(ty) => instance_types.get(&ty).cloned(),
                                ComponentTypeRef::Type(_) => {
                                    types += 1;
                                    None
                                }
                                _ => None,
                            };
                            part.declared.insert(import.name.name.to_string(), exports);
                            part.head.push(HeadItem::Import(import));
                        }
                    }
                    Payload::ComponentImportSection(_) => {
                        return Err(format!("{step}: it imports something after its own definitions begin; only components whose imports come first (as wit-component makes them) can be composed"));
                    }
                    // Aliases of what imported instances export belong to the head; any other
                    // alias needs definitions of the component's own, so the head ended.
                    Payload::ComponentAliasSection(reader) if in_head => {
                        let mut imported_only = true;
                        for alias in reader.clone() {
                            imported_only &= matches!(alias.map_err(parse)?, ComponentAlias::InstanceExport { .. });
                        }
                        if imported_only {
                            for alias in reader {
                                let alias = alias.map_err(parse)?;
                                if matches!(alias, ComponentAlias::InstanceExport { kind: ComponentExternalKind::Type, .. }) {
                                    types += 1;
                                }
                                part.head.push(HeadItem::Alias(alias));
                            }
                        } else {
                            in_head = false;
                        }
                    }
                    Payload::ComponentExportSection(reader) => {
                        in_head = false;
                        for export in reader {
                            let export = export.map_err(parse)?;
                            part.exports.push((export.name, export.kind));
                        }
                    }
                    _ => in_head = false,
                }
            }
            Ok(part)
        }

        fn exports_instance(&self, name: &str) -> bool {
            self.exports.iter().any(|(export, kind)| export.name == name && *kind == ComponentExternalKind::Instance)
        }
    }

    /// One value for each of a component's index spaces (types, instances, functions,
    /// components, modules, values).
    #[derive(Default, Clone, Copy)]
    struct PerKind<T> {
        types: T,
        instances: T,
        funcs: T,
        components: T,
        modules: T,
        values: T,
    }

    impl<T> PerKind<T> {
        fn get_mut(&mut self, kind: ComponentExternalKind) -> &mut T {
            match kind {
                ComponentExternalKind::Type => &mut self.types,
                ComponentExternalKind::Instance => &mut self.instances,
                ComponentExternalKind::Func => &mut self.funcs,
                ComponentExternalKind::Component => &mut self.components,
                ComponentExternalKind::Module => &mut self.modules,
                ComponentExternalKind::Value => &mut self.values,
            }
        }
    }

    /// How many items of each kind a component has declared so far: the next index of each.
    type Counts = PerKind<u32>;

    impl Counts {
        /// Declares one item of `kind`; answers its index.
        fn declare(&mut self, kind: ComponentExternalKind) -> u32 {
            let count = self.get_mut(kind);
            *count += 1;
            *count - 1
        }
    }

    /// The composition being written.
    #[derive(Default)]
    struct Outer {
        component: Component,
        counts: Counts,
        /// Each import of the composition: its kind and index, by name.
        imports: HashMap<String, (ComponentExternalKind, u32)>,
    }

    impl Outer {
        /// Declares both heads in the composition, item by item and each in its order: types
        /// and aliases, and each import once, as the component `chosen` names for a name both
        /// import. The other's items from such an import on wait until it is declared. Answers
        /// the arguments to instantiate each with: its imports, by name, as the composition's.
        #[allow(clippy::type_complexity)]
        fn declare_heads(
            &mut self,
            guard: &Part<'_>,
            tools: &Part<'_>,
            chosen: &HashMap<String, usize>,
        ) -> Result<(Vec<(String, ComponentExportKind, u32)>, Vec<(String, ComponentExportKind, u32)>), String> {
            let parts = [guard, tools];
            let steps = ["declaring the guard's imports", "declaring the tools' imports"];
            let mut next = [0usize; 2];
            let mut remaps = [Remap::default(), Remap::default()];
            let mut arguments = [Vec::new(), Vec::new()];
            while next[0] < guard.head.len() || next[1] < tools.head.len() {
                let mut moved = false;
                for which in 0..2 {
                    while let Some(item) = parts[which].head.get(next[which]) {
                        if let HeadItem::Import(import) = item {
                            let name = import.name.name;
                            if chosen.get(name).is_some_and(|by| *by != which) && !self.imports.contains_key(name) {
                                break;
                            }
                        }
                        self.declare(item, &mut remaps[which], &mut arguments[which]).map_err(|e| format!("{}: {e}", steps[which]))?;
                        next[which] += 1;
                        moved = true;
                    }
                }
                if !moved {
                    return Err(
                        "declaring the imports: the guard's and the tools' imports refer to each other in orders that cannot be merged"
                            .into(),
                    );
                }
            }
            let [guard_arguments, tools_arguments] = arguments;
            Ok((guard_arguments, tools_arguments))
        }

        /// Declares one head item; an import whose name is already imported is that import.
        fn declare(
            &mut self,
            item: &HeadItem<'_>,
            remap: &mut Remap,
            arguments: &mut Vec<(String, ComponentExportKind, u32)>,
        ) -> Result<(), String> {
            match item {
                HeadItem::Type(ty) => {
                    let mut types = ComponentTypeSection::new();
                    remap.parse_component_type(types.ty(), ty.clone()).map_err(|e| e.to_string())?;
                    remap.check()?;
                    remap.map(ComponentExternalKind::Type, self.counts.declare(ComponentExternalKind::Type));
                    self.component.section(&types);
                }
                HeadItem::Import(import) => {
                    let (name, kind) = (import.name.name, import.ty.kind());
                    let index = match self.imports.get(name) {
                        Some((imported, index)) if *imported == kind => *index,
                        Some((imported, _)) => {
                            return Err(format!(
                                "`{name}` is imported as a {} by one and as a {} by the other",
                                kind.desc(),
                                imported.desc()
                            ));
                        }
                        None => {
                            let ty = remap.component_type_ref(import.ty).map_err(|e| e.to_string())?;
                            remap.check()?;
                            let mut imports = ComponentImportSection::new();
                            imports.import(import.name, ty);
                            self.component.section(&imports);
                            let index = self.counts.declare(kind);
                            self.imports.insert(name.to_string(), (kind, index));
                            index
                        }
                    };
                    remap.map(kind, index);
                    arguments.push((name.to_string(), ComponentExportKind::from(kind), index));
                }
                HeadItem::Alias(alias) => {
                    let ComponentAlias::InstanceExport { kind, .. } = alias else {
                        return Err("an alias of something other than an imported instance's export".into());
                    };
                    let kind = *kind;
                    let mut aliases = ComponentAliasSection::new();
                    aliases.alias(remap.component_alias(alias.clone()).map_err(|e| e.to_string())?);
                    remap.check()?;
                    remap.map(kind, self.counts.declare(kind));
                    self.component.section(&aliases);
                }
            }
            Ok(())
        }

        /// Nests a component, unchanged; answers its index.
        fn nested(&mut self, bytes: &[u8]) -> u32 {
            self.component.section(&RawSection { id: ComponentSectionId::Component.into(), data: bytes });
            self.counts.declare(ComponentExternalKind::Component)
        }

        /// Instantiates the nested component `component` with `arguments`; answers the instance.
        fn instantiate(&mut self, component: u32, arguments: &[(String, ComponentExportKind, u32)]) -> u32 {
            let mut instances = ComponentInstanceSection::new();
            instances.instantiate(component, arguments.iter().map(|(name, kind, index)| (name.as_str(), *kind, *index)));
            self.component.section(&instances);
            self.counts.declare(ComponentExternalKind::Instance)
        }

        /// Aliases what `instance` exports as `name`; answers its index.
        fn alias(&mut self, instance: u32, kind: ComponentExportKind, name: &str) -> u32 {
            let mut aliases = ComponentAliasSection::new();
            aliases.alias(Alias::InstanceExport { instance, kind, name });
            self.component.section(&aliases);
            self.counts.declare(match kind {
                ComponentExportKind::Module => ComponentExternalKind::Module,
                ComponentExportKind::Func => ComponentExternalKind::Func,
                ComponentExportKind::Value => ComponentExternalKind::Value,
                ComponentExportKind::Type => ComponentExternalKind::Type,
                ComponentExportKind::Instance => ComponentExternalKind::Instance,
                ComponentExportKind::Component => ComponentExternalKind::Component,
            })
        }
    }

    /// Where a component's head items land in the composition: its index of each kind →
    /// the composition's. Indices inside a type definition (an instance type's own types)
    /// are local to it and stay; an outer alias from inside one that reaches the component
    /// itself is moved like the component's own indices.
    #[derive(Default)]
    struct Remap {
        /// The composition's index of each of the component's, in each index space.
        spaces: PerKind<Vec<u32>>,
        /// How deep inside type definitions the re-encoding is (0: the component's level).
        depth: u32,
        /// An index with nowhere to go (something the head refers to that it does not
        /// declare), noticed by the re-encoder's callbacks, which cannot fail.
        unmapped: Option<&'static str>,
    }

    impl Remap {
        fn map(&mut self, kind: ComponentExternalKind, to: u32) {
            self.space(kind).push(to);
        }

        fn space(&mut self, kind: ComponentExternalKind) -> &mut Vec<u32> {
            self.spaces.get_mut(kind)
        }

        /// `index` of `kind` at the component's level, moved.
        fn moved(&mut self, kind: ComponentExternalKind, index: u32) -> u32 {
            match self.space(kind).get(index as usize) {
                Some(to) => *to,
                None => {
                    self.unmapped = Some(kind.desc());
                    u32::MAX
                }
            }
        }

        /// `index` of `kind` as seen `count` levels out from the current one.
        fn reached(&mut self, kind: ComponentExternalKind, count: u32, index: u32) -> u32 {
            if count == self.depth {
                self.moved(kind, index)
            } else {
                index
            }
        }

        fn local(&mut self, kind: ComponentExternalKind, index: u32) -> u32 {
            self.reached(kind, 0, index)
        }

        fn check(&mut self) -> Result<(), String> {
            match self.unmapped.take() {
                Some(kind) => Err(format!("its head refers to a {kind} it does not declare")),
                None => Ok(()),
            }
        }
    }

    impl Reencode for Remap {
        type Error = Infallible;

        // Core indices at the component's level would refer to core definitions, which a
        // head has none of (a validated component's head cannot refer to them).
        fn type_index(&mut self, ty: u32) -> Result<u32, ReencodeError<Infallible>> {
            if self.depth == 0 {
                self.unmapped = Some("core type");
            }
            Ok(ty)
        }

        fn function_index(&mut self, func: u32) -> Result<u32, ReencodeError<Infallible>> {
            if self.depth == 0 {
                self.unmapped = Some("core function");
            }
            Ok(func)
        }
    }

    impl ReencodeComponent for Remap {
        fn component_type_index(&mut self, ty: u32) -> u32 {
            self.local(ComponentExternalKind::Type, ty)
        }

        fn component_instance_index(&mut self, instance: u32) -> u32 {
            self.local(ComponentExternalKind::Instance, instance)
        }

        fn component_func_index(&mut self, func: u32) -> u32 {
            self.local(ComponentExternalKind::Func, func)
        }

        fn component_index(&mut self, component: u32) -> u32 {
            self.local(ComponentExternalKind::Component, component)
        }

        fn module_index(&mut self, module: u32) -> u32 {
            self.local(ComponentExternalKind::Module, module)
        }

        fn component_value_index(&mut self, value: u32) -> u32 {
            self.local(ComponentExternalKind::Value, value)
        }

        fn outer_type_index(&mut self, count: u32, ty: u32) -> Result<u32, ReencodeError<Infallible>> {
            if count == self.depth {
                self.unmapped = Some("core type");
            }
            Ok(ty)
        }

        fn outer_component_type_index(&mut self, count: u32, ty: u32) -> u32 {
            self.reached(ComponentExternalKind::Type, count, ty)
        }

        fn outer_component_index(&mut self, count: u32, component: u32) -> u32 {
            self.reached(ComponentExternalKind::Component, count, component)
        }

        fn outer_module_index(&mut self, count: u32, module: u32) -> u32 {
            self.reached(ComponentExternalKind::Module, count, module)
        }

        fn push_depth(&mut self) {
            self.depth += 1;
        }

        fn pop_depth(&mut self) {
            self.depth = self.depth.saturating_sub(1);
        }
    }
}
