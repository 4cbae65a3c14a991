//! Builds the guest component (`guest/`), the N15 guard (`guard/`) and the gateway wire
//! (`wire/`), for `wasm32-wasip2`, release; composes the guard in front of the tools; and
//! embeds the plain and the guarded tools and the wire, so the host binary and library
//! carry the components they were built with.

#![forbid(unsafe_code)]

use std::path::PathBuf;

include!("build-support/wasm_build.rs");
include!("build-support/compose.rs");

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("host/ is inside the workspace").to_path_buf();
    embed_conformance_cases(&root);
    for path in [
        "guest/src",
        "guest/Cargo.toml",
        "guard/src",
        "guard/Cargo.toml",
        "wire/src",
        "wire/Cargo.toml",
        "contract/src",
        "grammar/src",
        "deployment/src",
        "deployment/Cargo.toml",
        // The guard and the wire link these too (the job rules; chat.history's reading).
        "host-rules/src",
        "host-rules/Cargo.toml",
        "transcript/src",
        "transcript/Cargo.toml",
        "wit",
        "Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(path).display());
    }
    println!("cargo:rerun-if-env-changed=SESSION_TOOLS_GUEST_WASM");
    println!("cargo:rerun-if-env-changed=SESSION_TOOLS_GUARD_WASM");
    println!("cargo:rerun-if-env-changed=SESSION_TOOLS_WIRE_WASM");

    // One target directory for the three nested builds: the compiler-side crates they share
    // (wit-bindgen's macros, syn, serde_derive, wasm-encoder, …) are compiled once instead of
    // three times (the set-up time a new user waits). Each is still its own `cargo build --package`, so
    // features are not unified across them (the wire's `serde_json/preserve_order` stays the
    // wire's).
    let wasm_target = root.join("target").join("wasm");
    let wire = match std::env::var_os("SESSION_TOOLS_WIRE_WASM") {
        Some(prebuilt) => PathBuf::from(prebuilt),
        None => build_wasm_component(
            "gateway wire component",
            &root,
            &["--package".as_ref(), "session-tools-wire".as_ref()],
            &wasm_target,
            "session_tools_wire",
        ),
    };
    println!("cargo:rustc-env=SESSION_TOOLS_WIRE_COMPONENT={}", wire.display());

    // A prebuilt component can be given instead (e.g. for builds without the wasm target).
    let tools = match std::env::var_os("SESSION_TOOLS_GUEST_WASM") {
        Some(prebuilt) => PathBuf::from(prebuilt),
        None => build_wasm_component(
            "guest component",
            &root,
            &["--package".as_ref(), "session-tools-guest".as_ref()],
            &wasm_target,
            "session_tools_guest",
        ),
    };
    println!("cargo:rustc-env=SESSION_TOOLS_COMPONENT={}", tools.display());

    // The N15 guard, built on its own and composed in front of the tools: what
    // a restricted caller is served by.
    let guard = match std::env::var_os("SESSION_TOOLS_GUARD_WASM") {
        Some(prebuilt) => PathBuf::from(prebuilt),
        None => build_wasm_component(
            "guard component",
            &root,
            &["--package".as_ref(), "session-tools-guard".as_ref()],
            &wasm_target,
            "session_tools_guard",
        ),
    };
    // Beside the components' build, where the plugin's build finds it too.
    let guarded = wasm_target.join("session_tools_guarded.wasm");
    std::fs::create_dir_all(guarded.parent().expect("a file in a directory"))
        .unwrap_or_else(|e| panic!("creating {}: {e}", guarded.display()));
    let read = |path: &PathBuf| std::fs::read(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    let composed = compose_guarded(&read(&guard), &read(&tools)).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(&guarded, composed).unwrap_or_else(|e| panic!("writing {}: {e}", guarded.display()));
    println!("cargo:rustc-env=SESSION_TOOLS_GUARD_COMPONENT={}", guard.display());
    println!("cargo:rustc-env=SESSION_TOOLS_GUARDED_COMPONENT={}", guarded.display());
}

/// Embeds the project's copy of the conformance cases (`tests/conformance/cases`), the
/// default of `session-tools conformance`.
fn embed_conformance_cases(root: &std::path::Path) {
    let dir = root.join("tests/conformance/cases");
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.extension().is_some_and(|e| e == "json")).collect())
        .unwrap_or_default();
    files.sort();
    let mut out =
        String::from("/// The conformance cases kept in the project: (file name, contents).\npub static CASES: &[(&str, &str)] = &[\n");
    for file in files {
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        out.push_str(&format!("    ({name:?}, include_str!({:?})),\n", file.display().to_string()));
    }
    out.push_str("];\n");
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    std::fs::write(out_dir.join("conformance_cases.rs"), out).expect("writing conformance_cases.rs");
}
