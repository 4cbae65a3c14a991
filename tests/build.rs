//! Builds the test-only hostile component (`tests/hostile-guest/`, for `wasm32-wasip2`,
//! release) in two variants, and gives the tests their paths: `HOSTILE_GUEST_WASM` (the
//! `session-tools` world, misbehaving on purpose) and `HOSTILE_GUEST_FS_WASM` (the same
//! with feature `ambient-fs`, so it also imports `wasi:filesystem`).

#![forbid(unsafe_code)]

use std::path::{Path, PathBuf};

include!("../host/build-support/wasm_build.rs");

fn main() {
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let root = manifest.parent().expect("tests/ is inside the workspace").to_path_buf();
    let out_dir = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let guest = manifest.join("hostile-guest");
    for path in [guest.join("src"), guest.join("Cargo.toml"), guest.join("Cargo.lock"), root.join("wit")] {
        println!("cargo:rerun-if-changed={}", path.display());
    }

    // Not `target/` (the outer cargo holds its lock), but the directory the host's build
    // script builds its components in: the compiler-side crates both need (wit-bindgen's
    // macros, syn, wit-parser, …) are then compiled once for both, as long as
    // `hostile-guest/Cargo.lock` names the versions the workspace's `Cargo.lock` does.
    let target_dir = root.join("target").join("wasm");
    for (features, file, var) in
        [(None, "hostile_guest.wasm", "HOSTILE_GUEST_WASM"), (Some("ambient-fs"), "hostile_guest_fs.wasm", "HOSTILE_GUEST_FS_WASM")]
    {
        let built = build(&guest, &target_dir, features);
        // Both variants come out under the same name: keep a copy of each.
        let kept = out_dir.join(file);
        std::fs::copy(&built, &kept).unwrap_or_else(|e| panic!("copying {} to {}: {e}", built.display(), kept.display()));
        println!("cargo:rustc-env={var}={}", kept.display());
    }
}

/// Builds the hostile guest with the given features; answers the component's path.
fn build(guest: &Path, target_dir: &Path, features: Option<&str>) -> PathBuf {
    let manifest = guest.join("Cargo.toml");
    let mut args: Vec<&std::ffi::OsStr> = vec!["--manifest-path".as_ref(), manifest.as_os_str()];
    if let Some(features) = features {
        args.extend([std::ffi::OsStr::new("--features"), std::ffi::OsStr::new(features)]);
    }
    build_wasm_component("hostile guest component", guest, &args, target_dir, "hostile_guest")
}
