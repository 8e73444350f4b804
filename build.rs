//! Records the git commit the binary is built from (for run manifests), when
//! the build happens in a git checkout with git on the PATH. Nothing else.
//!
//! Cargo reruns a build script whenever a path it was told to watch does not
//! exist, and a rerun rebuilds the whole crate (with LTO, minutes). So only
//! paths that exist are watched: `HEAD`, the folder of branch refs (a commit
//! writes or creates the branch's loose ref there) and `packed-refs` when the
//! repository has one (a `git init` repository that was never packed has none).

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Asks cargo to rerun this script when `path` changes, if it exists.
fn watch(path: &Path) {
    if path.exists() {
        println!("cargo:rerun-if-changed={}", path.display());
    }
}

fn main() {
    println!("cargo:rerun-if-env-changed=UNOLAB_GIT_COMMIT");
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        // Rebuild when HEAD moves or the branch it names gets a new commit.
        watch(&Path::new(&dir).join("HEAD"));
        let common = git(&["rev-parse", "--path-format=absolute", "--git-common-dir"])
            .unwrap_or_else(|| dir.clone());
        let common = Path::new(&common);
        watch(&common.join("refs").join("heads"));
        watch(&common.join("packed-refs"));
    }
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=UNOLAB_GIT_COMMIT={commit}");
    }
}
