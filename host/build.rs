//! Builds the guest component (`guest/`) and the gateway wire component (`wire/`), for
//! `wasm32-wasip2`, release, and embeds them, so the host binary and library carry the
//! components they were built with.

#![forbid(unsafe_code)]

use std::path::PathBuf;

include!("build-support/wasm_build.rs");

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("host/ is inside the workspace").to_path_buf();
    embed_conformance_cases(&root);
    for path in ["guest/src", "guest/Cargo.toml", "wire/src", "wire/Cargo.toml", "contract/src", "wit", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={}", root.join(path).display());
    }
    println!("cargo:rerun-if-env-changed=SESSION_TOOLS_GUEST_WASM");
    println!("cargo:rerun-if-env-changed=SESSION_TOOLS_WIRE_WASM");

    let wire = match std::env::var_os("SESSION_TOOLS_WIRE_WASM") {
        Some(prebuilt) => PathBuf::from(prebuilt),
        None => build_wasm_component(
            "gateway wire component",
            &root,
            &["--package".as_ref(), "session-tools-wire".as_ref()],
            &root.join("target").join("wire"),
            "session_tools_wire",
        ),
    };
    println!("cargo:rustc-env=SESSION_TOOLS_WIRE_COMPONENT={}", wire.display());

    // A prebuilt component can be given instead (e.g. for builds without the wasm target).
    if let Some(prebuilt) = std::env::var_os("SESSION_TOOLS_GUEST_WASM") {
        println!("cargo:rustc-env=SESSION_TOOLS_COMPONENT={}", PathBuf::from(prebuilt).display());
        return;
    }

    let wasm = build_wasm_component(
        "guest component",
        &root,
        &["--package".as_ref(), "session-tools-guest".as_ref()],
        &root.join("target").join("guest"),
        "session_tools_guest",
    );
    println!("cargo:rustc-env=SESSION_TOOLS_COMPONENT={}", wasm.display());
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
