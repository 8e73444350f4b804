//! Records the git commit the binary is built from (for run manifests), when
//! the build happens in a git checkout with git on the PATH. Nothing else.

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    println!("cargo:rerun-if-env-changed=UNOLAB_GIT_COMMIT");
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        // Rebuild when HEAD moves or the branch it names gets a new commit.
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={dir}/{r}");
        }
        if let Some(common) = git(&["rev-parse", "--git-common-dir"]) {
            if let Some(r) = git(&["symbolic-ref", "-q", "HEAD"]) {
                println!("cargo:rerun-if-changed={common}/{r}");
            }
            println!("cargo:rerun-if-changed={common}/packed-refs");
        }
    }
    if let Some(commit) = git(&["rev-parse", "HEAD"]) {
        println!("cargo:rustc-env=UNOLAB_GIT_COMMIT={commit}");
    }
}
