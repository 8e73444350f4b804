//! What an output folder already holds: the result files unolab writes,
//! what they are the results of, and the rule that earlier results are not
//! replaced unless the user says so (the command line's `--force`, the
//! Python package's `force=True`). Both front-ends call these before the
//! first game.

use std::path::{Path, PathBuf};

/// Creates `dir` and its missing parents, returning the folders created
/// (outermost first), so that a front-end can remove them again
/// ([`remove_created`]) when no result came to be written. The error names
/// the path and the reason; on an error nothing created is left behind.
pub fn create_dirs(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut missing: Vec<PathBuf> = dir
        .ancestors()
        .filter(|a| !a.as_os_str().is_empty())
        .take_while(|a| !a.exists())
        .map(Path::to_path_buf)
        .collect();
    missing.reverse();
    for (i, d) in missing.iter().enumerate() {
        if let Err(e) = std::fs::create_dir(d) {
            if !d.is_dir() {
                remove_created(&missing[..i]);
                return Err(format!(
                    "{}: cannot create the directory: {e}",
                    dir.display()
                ));
            }
        }
    }
    Ok(missing)
}

/// [`create_dirs`], then checks that a file can be written in `dir` (the
/// folders created are removed again when not): an output folder ready
/// before the first game. The error names the path and the reason.
pub fn create_writable(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let created = create_dirs(dir)?;
    let probe = dir.join(format!(".unolab-write-test-{}", std::process::id()));
    let written = std::fs::write(&probe, b"");
    let _ = std::fs::remove_file(&probe);
    if let Err(e) = written {
        remove_created(&created);
        return Err(format!(
            "{}: cannot write in the directory: {e}",
            dir.display()
        ));
    }
    Ok(created)
}

/// Removes the folders of [`create_dirs`] again, innermost first, as long as
/// they are empty.
pub fn remove_created(created: &[PathBuf]) {
    for d in created.iter().rev() {
        if std::fs::remove_dir(d).is_err() {
            break;
        }
    }
}

/// Every file unolab writes into an `--out` folder: a run's, a
/// tournament's, an experiment's (or a compare's) and a merge's results, and
/// an experiment's resumable state.
pub const RESULT_FILES: &[&str] = &[
    "manifest.json",
    "state.json",
    "summary.csv",
    "distributions.csv",
    "arms.csv",
    "comparisons.csv",
    "report.md",
    "differences.svg",
    "win_rates.svg",
    "first_mover.svg",
    "round_length.svg",
    "ratings.csv",
    "head_to_head.csv",
    "ratings.svg",
    "ladder.csv",
    "ladder.svg",
];

/// The files of [`RESULT_FILES`] that `dir` holds.
pub fn results_in(dir: &Path) -> Vec<&'static str> {
    RESULT_FILES
        .iter()
        .copied()
        .filter(|f| dir.join(f).exists())
        .collect()
}

/// The `manifest.json` of the results in `dir`, when there is one that
/// reads as JSON.
pub fn read_manifest(dir: &Path) -> Option<serde_json::Value> {
    std::fs::read_to_string(dir.join("manifest.json"))
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
}

/// The start a run's report gives: `now`, but for a resumed run that played
/// nothing (`idle`), the start its manifest in `out` holds.
pub fn reported_start(idle: bool, out: Option<&Path>, now: String) -> String {
    let saved =
        |dir: &Path| read_manifest(dir).and_then(|m| m["started"].as_str().map(String::from));
    match (idle, out) {
        (true, Some(dir)) => saved(dir).unwrap_or(now),
        _ => now,
    }
}

/// What the results in `dir` are, from their `manifest.json`: "the finished
/// results of a run", "the partial results of experiment 'x'", ...
pub fn describe_results(dir: &Path) -> String {
    let Some(m) = read_manifest(dir) else {
        return "the results of an earlier command".into();
    };
    let what = if let Some(name) = m["experiment"].as_str() {
        let compare = m["file"]
            .as_str()
            .is_some_and(crate::lab::compare::is_compare_origin);
        if name == "compare" && compare {
            "a compare".to_string()
        } else {
            format!("experiment '{name}'")
        }
    } else if m["kind"] == "tournament" {
        "a tournament".into()
    } else if m["kind"] == "ladder" || m["field"].is_array() {
        // (a ladder's manifest has held "kind" since 2026-12-04; before,
        // its "field" told it apart)
        format!("ladder '{}'", m["name"].as_str().unwrap_or_default())
    } else if m.get("shards").is_some() {
        "a merge".into()
    } else {
        "a run".into()
    };
    let how = if m["partial"] == true {
        "partial"
    } else {
        "finished"
    };
    format!("the {how} results of {what}")
}

/// Refuses an `--out` folder that holds earlier results (any of
/// [`RESULT_FILES`]) unless `force`. Call it after the configuration is
/// checked and before the first game.
pub fn check_out_dir(dir: &Path, force: bool) -> Result<(), String> {
    let found = results_in(dir);
    if found.is_empty() || force {
        return Ok(());
    }
    let shown: Vec<&str> = found.iter().copied().take(3).collect();
    // An interrupted experiment or tournament keeps what --resume continues.
    let what = describe_results(dir);
    let resumable = found.contains(&"state.json") && what.contains("partial");
    Err(format!(
        "--out {} already holds {} ({}{}); use another --out, {}or --force to replace them",
        dir.display(),
        what,
        shown.join(", "),
        if found.len() > shown.len() {
            ", ..."
        } else {
            ""
        },
        if resumable {
            "continue them where they were started (--resume), "
        } else {
            ""
        },
    ))
}

/// Removes the earlier results in `dir` (the files of [`RESULT_FILES`]) at
/// once, for good: a ladder's table size it no longer has.
pub fn clear_results(dir: &Path) -> Result<(), String> {
    for f in results_in(dir) {
        std::fs::remove_file(dir.join(f))
            .map_err(|e| format!("--force: cannot remove {}: {e}", dir.join(f).display()))?;
    }
    Ok(())
}

/// Earlier results that `--force` moved out of the way, into a hidden folder
/// of their own folder (`.unolab-replaced-PID`), until the new command has
/// results of its own there. Dropped (or [`SetAside::settle`]d), it removes
/// them if the folder now holds results, and otherwise puts them back: a
/// command that fails or is quit before it wrote anything leaves the
/// earlier results as they were, not an empty folder.
pub struct SetAside {
    dir: PathBuf,
    aside: PathBuf,
    moved: Vec<String>,
    /// Whether the command wrote outputs of its own into `dir` (`None`:
    /// results, [`holds_results`]).
    written: Option<Written>,
}

type Written = Box<dyn Fn(&Path) -> bool + Send>;

impl std::fmt::Debug for SetAside {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SetAside")
            .field("dir", &self.dir)
            .field("aside", &self.aside)
            .field("moved", &self.moved)
            .finish_non_exhaustive()
    }
}

impl SetAside {
    /// Removes the earlier results, or puts them back ([`SetAside`]).
    pub fn settle(mut self) {
        self.settle_now();
    }

    fn settle_now(&mut self) {
        if self.moved.is_empty() {
            return;
        }
        let moved = std::mem::take(&mut self.moved);
        let written = match &self.written {
            Some(w) => w(&self.dir),
            None => holds_results(&self.dir),
        };
        if written {
            let _ = std::fs::remove_dir_all(&self.aside);
        } else {
            put_back(&self.dir, &self.aside, &moved);
        }
    }
}

impl Drop for SetAside {
    fn drop(&mut self) {
        self.settle_now();
    }
}

/// The folders of a ladder's table sizes (`2p`, `4p`, ...) in `dir` that
/// hold results.
fn size_folders(dir: &Path) -> Vec<String> {
    (2..=crate::engine::game::MAX_PLAYERS)
        .map(|p| format!("{p}p"))
        .filter(|n| {
            let d = dir.join(n);
            d.is_dir() && !results_in(&d).is_empty()
        })
        .collect()
}

/// Whether `dir` holds results: result files, or a table size's.
fn holds_results(dir: &Path) -> bool {
    !results_in(dir).is_empty() || !size_folders(dir).is_empty()
}

/// Moves `moved` (names in `dir`) back from `aside`, and removes `aside`
/// when that empties it.
fn put_back(dir: &Path, aside: &Path, moved: &[String]) {
    for n in moved {
        let _ = std::fs::rename(aside.join(n), dir.join(n));
    }
    let _ = std::fs::remove_dir(aside);
}

/// Moves the earlier results in `dir` out of the way (`--force`): the files
/// of [`RESULT_FILES`] and a ladder's table-size folders, so that nothing of
/// them is mixed into a new result. They are removed only once the new
/// command has written results ([`SetAside`]); `None` when there were none.
pub fn set_aside_results(dir: &Path) -> Result<Option<SetAside>, String> {
    let mut names: Vec<String> = results_in(dir).iter().map(|f| f.to_string()).collect();
    names.extend(size_folders(dir));
    move_aside(dir, names, None)
}

/// Moves the files `names` of `dir` aside, as [`set_aside_results`] moves
/// results, for a command whose outputs are others (`train`'s networks):
/// removed once `written(dir)` says it wrote outputs of its own, else put
/// back.
pub fn set_aside_files(
    dir: &Path,
    names: Vec<String>,
    written: impl Fn(&Path) -> bool + Send + 'static,
) -> Result<Option<SetAside>, String> {
    move_aside(dir, names, Some(Box::new(written)))
}

fn move_aside(
    dir: &Path,
    names: Vec<String>,
    written: Option<Written>,
) -> Result<Option<SetAside>, String> {
    if names.is_empty() {
        return Ok(None);
    }
    let aside = dir.join(format!(".unolab-replaced-{}", std::process::id()));
    let fail = |e: std::io::Error, what: &Path| {
        format!("--force: cannot move {} aside: {e}", what.display())
    };
    std::fs::create_dir(&aside).map_err(|e| fail(e, &aside))?;
    let mut moved = Vec::new();
    for n in names {
        if let Err(e) = std::fs::rename(dir.join(&n), aside.join(&n)) {
            put_back(dir, &aside, &moved);
            return Err(fail(e, &dir.join(&n)));
        }
        moved.push(n);
    }
    Ok(Some(SetAside {
        dir: dir.to_path_buf(),
        aside,
        moved,
        written,
    }))
}

/// [`check_out_dir`], then with `force` [`set_aside_results`]: the folder
/// is ready for a new result.
pub fn claim_out_dir(dir: &Path, force: bool) -> Result<Option<SetAside>, String> {
    check_out_dir(dir, force)?;
    if force {
        set_aside_results(dir)
    } else {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_set_aside_come_back_unless_the_command_wrote_its_own() {
        let dir = std::env::temp_dir().join(format!("unolab-aside-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let names = || vec!["net-0.toml".to_string(), "net-1.toml".to_string()];
        let write_old = || {
            for n in names() {
                std::fs::write(dir.join(&n), format!("old {n}")).unwrap();
            }
        };
        let listing = || {
            let mut v: Vec<String> = std::fs::read_dir(&dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            v.sort();
            v
        };
        let wrote = |d: &Path| d.join("net-0.toml").exists();
        // Nothing written (a failed or quit run): the files come back.
        write_old();
        let aside = set_aside_files(&dir, names(), wrote).unwrap().unwrap();
        assert_eq!(listing().len(), 1, "{:?}", listing());
        assert!(listing()[0].starts_with(".unolab-replaced-"));
        aside.settle();
        assert_eq!(listing(), names());
        assert_eq!(
            std::fs::read_to_string(dir.join("net-1.toml")).unwrap(),
            "old net-1.toml"
        );
        // A new stage written: the earlier files go, the new one stays.
        let aside = set_aside_files(&dir, names(), wrote).unwrap().unwrap();
        std::fs::write(dir.join("net-0.toml"), "new").unwrap();
        drop(aside);
        assert_eq!(listing(), ["net-0.toml"]);
        assert_eq!(
            std::fs::read_to_string(dir.join("net-0.toml")).unwrap(),
            "new"
        );
        // No files: nothing set aside.
        assert!(set_aside_files(&dir, Vec::new(), wrote).unwrap().is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
