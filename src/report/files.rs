//! Files written whole or not at all: each goes to a hidden temporary file
//! beside its target, then is renamed over it. An error names the target the
//! caller asked for (never the temporary file) and leaves no temporary file
//! behind.

use std::path::{Path, PathBuf};

/// The temporary file beside `target`: hidden, and unique to this process.
fn temporary(target: &Path) -> PathBuf {
    let name = target.file_name().unwrap_or_default().to_string_lossy();
    target.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Creates `dir` with its parents; an error names `target`, the file that
/// was to be written there.
fn create_folder(dir: &Path, target: &Path) -> Result<(), String> {
    if dir.as_os_str().is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir).map_err(|e| {
        format!(
            "cannot write {}: cannot create the folder {}: {e}",
            target.display(),
            dir.display()
        )
    })
}

/// Why `path` cannot be the target of a file that is written whole and
/// renamed into place ([`write_file_atomically`]), in words that follow the
/// path in a message (`None` when it can): a path ending with a separator
/// names a folder, and a symbolic link, FIFO or device would be replaced by
/// a regular file, not written through.
pub fn unfit_target(path: &Path) -> Option<&'static str> {
    let text = path.as_os_str().to_string_lossy();
    if text.ends_with('/') || text.ends_with(std::path::MAIN_SEPARATOR) {
        return Some("ends with a separator: it names a folder, not a file");
    }
    // `dir/.` names a folder too (its file name would be `dir`'s).
    if text.ends_with("/.") {
        return Some("ends with '/.': it names a folder, not a file");
    }
    let kind = std::fs::symlink_metadata(path).ok()?.file_type();
    if kind.is_symlink() {
        Some("is a symbolic link: the file would replace the link, not be written through it; give the path of the file itself")
    } else if !kind.is_file() && !kind.is_dir() {
        Some("is not a regular file (a FIFO, a socket or a device), and the file written would replace it; give the path of a regular file")
    } else {
        None
    }
}

/// Writes `bytes` to `path` whole or not at all, creating missing folders
/// ([`write_files_atomically`] with one file). An existing file is replaced.
pub fn write_file_atomically(path: &Path, bytes: &[u8]) -> Result<(), String> {
    let name = path
        .file_name()
        .ok_or_else(|| format!("cannot write {}: not a file name", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new(""));
    write_files_atomically(dir, &[(&*name.to_string_lossy(), bytes)])
}

/// Writes each `(name, contents)` into `dir` (created if missing): every
/// file is written to its temporary file first, and only when all of them
/// are are they renamed into place, so a file that cannot be written (or
/// whose name is taken by a folder) replaces none of them.
pub fn write_files_atomically<T: AsRef<[u8]>>(
    dir: &Path,
    files: &[(&str, T)],
) -> Result<(), String> {
    let targets: Vec<PathBuf> = files.iter().map(|(name, _)| dir.join(name)).collect();
    if let Some(first) = targets.first() {
        create_folder(dir, first)?;
    }
    if let Some(t) = targets.iter().find(|t| t.is_dir()) {
        return Err(format!("cannot write {}: it is a folder", t.display()));
    }
    let temps: Vec<PathBuf> = targets.iter().map(|t| temporary(t)).collect();
    let writing = Writing::of(&temps);
    let remove_from = |k: usize| {
        for t in &temps[k..] {
            let _ = std::fs::remove_file(t);
        }
    };
    for (k, (_, contents)) in files.iter().enumerate() {
        if let Err(e) = write_durably(&temps[k], contents.as_ref()) {
            remove_from(0);
            return Err(format!("cannot write {}: {e}", targets[k].display()));
        }
    }
    for (k, (tmp, target)) in temps.iter().zip(&targets).enumerate() {
        if let Err(e) = std::fs::rename(tmp, target) {
            remove_from(k);
            return Err(format!("cannot write {}: {e}", target.display()));
        }
    }
    // The renames themselves reach the disk with the folder's entries.
    // Some file systems cannot sync a folder: the files are synced anyway.
    if let Ok(d) = std::fs::File::open(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    }) {
        let _ = d.sync_all();
    }
    drop(writing);
    for t in &targets {
        remove_stale_temporaries(t);
    }
    Ok(())
}

/// Writes `bytes` to `path` and waits until they are on the disk, so that
/// the rename that follows never puts an empty or partly written file in
/// place of the old one after a power loss or a crash of the machine.
fn write_durably(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::File::create(path)?;
    f.write_all(bytes)?;
    f.sync_all()
}

/// The temporary files of the writes in progress ([`Writing`]).
static WRITING: std::sync::Mutex<Vec<PathBuf>> = std::sync::Mutex::new(Vec::new());

/// The temporary files of one write, listed in [`WRITING`] while it lasts.
struct Writing<'a>(&'a [PathBuf]);

impl<'a> Writing<'a> {
    fn of(temps: &'a [PathBuf]) -> Writing<'a> {
        if let Ok(mut w) = WRITING.lock() {
            w.extend(temps.iter().cloned());
        }
        Writing(temps)
    }
}

impl Drop for Writing<'_> {
    fn drop(&mut self) {
        if let Ok(mut w) = WRITING.lock() {
            w.retain(|t| !self.0.contains(t));
        }
    }
}

/// How many [`WriteHold`]s are alive ([`hold_writes`]).
static HELD: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// While alive, a command's results are being written as a set
/// ([`writes_held`]); dropped when the set is written (or failed).
#[must_use]
pub struct WriteHold(());

impl Drop for WriteHold {
    fn drop(&mut self) {
        HELD.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// Marks the writing of a command's results, several files and calls of
/// [`write_files_atomically`] that belong together (CSVs, plots, report,
/// manifest), until the hold is dropped: a signal handler that would quit
/// at once asks [`writes_held`] first, so that it does not leave half of
/// a new set beside none of the old.
pub fn hold_writes() -> WriteHold {
    HELD.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    WriteHold(())
}

/// Whether a command's results are being written ([`hold_writes`]).
pub fn writes_held() -> bool {
    HELD.load(std::sync::atomic::Ordering::SeqCst) > 0
}

/// Removes the temporary files of the writes in progress: for a process
/// about to exit in the middle of one (a second interrupt), which would
/// otherwise leave `.NAME.PID.tmp` beside the file it was replacing.
pub fn remove_unfinished_writes() {
    let temps = WRITING.lock().map(|w| w.clone()).unwrap_or_default();
    for t in temps {
        let _ = std::fs::remove_file(t);
    }
}

/// Removes the temporary files of `target` left by processes that are gone
/// (a `kill -9` during a write): `.NAME.PID.tmp` whose process no longer
/// runs. Those of a process still running (another copy writing the same
/// target) are left alone.
fn remove_stale_temporaries(target: &Path) {
    let (Some(dir), Some(name)) = (target.parent(), target.file_name()) else {
        return;
    };
    let prefix = format!(".{}.", name.to_string_lossy());
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        let pid = file
            .strip_prefix(&prefix)
            .and_then(|r| r.strip_suffix(".tmp"))
            .and_then(|p| p.parse::<i32>().ok());
        if let Some(pid) = pid {
            if pid as u32 != std::process::id() && !process_runs(pid) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
}

/// Whether process `pid` runs (a process that may run is taken to run).
#[cfg(unix)]
fn process_runs(pid: i32) -> bool {
    pid <= 0
        || !matches!(
            nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
            Err(nix::errno::Errno::ESRCH)
        )
}

#[cfg(not(unix))]
fn process_runs(_pid: i32) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("unolab-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    fn entries(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn writes_are_held_until_every_hold_is_dropped() {
        // (No other test of this binary holds writes.)
        assert!(!writes_held());
        let (a, b) = (hold_writes(), hold_writes());
        assert!(writes_held());
        drop(a);
        assert!(writes_held(), "the merge's hold and a nested one");
        drop(b);
        assert!(!writes_held());
    }

    #[test]
    fn a_write_removes_the_temporary_files_of_processes_that_are_gone() {
        // `kill -9` during a write left `.state.json.PID.tmp` for good.
        let d = scratch("stale");
        std::fs::create_dir_all(&d).unwrap();
        let gone = d.join(".state.json.2147483646.tmp");
        // Process 1 always runs: its file may be a write in progress.
        let running = d.join(".state.json.1.tmp");
        let other = d.join(".other.json.2147483646.tmp");
        for f in [&gone, &running, &other] {
            std::fs::write(f, b"").unwrap();
        }
        write_file_atomically(&d.join("state.json"), b"{}").unwrap();
        assert!(!gone.exists(), "a dead process's temporary file stays");
        assert_eq!(
            entries(&d),
            [
                ".other.json.2147483646.tmp",
                ".state.json.1.tmp",
                "state.json"
            ]
        );
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_file_is_written_in_new_folders_and_replaced() {
        let d = scratch("one");
        let p = d.join("a/b/out.txt");
        write_file_atomically(&p, b"first").unwrap();
        write_file_atomically(&p, b"second").unwrap();
        assert_eq!(std::fs::read_to_string(&p).unwrap(), "second");
        assert_eq!(entries(&d.join("a/b")), ["out.txt"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_failed_write_names_the_target_and_leaves_nothing() {
        let d = scratch("fail");
        // The target is a directory: refused before anything is written.
        let p = d.join("taken");
        std::fs::create_dir_all(p.join("inside")).unwrap();
        let e = write_file_atomically(&p, b"x").unwrap_err();
        assert!(
            e.starts_with(&format!("cannot write {}: ", p.display())),
            "{e}"
        );
        assert!(!e.contains(".tmp"), "{e}");
        assert_eq!(entries(&d), ["taken"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_folder_that_cannot_be_made_is_named_with_the_target() {
        let d = scratch("folder");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("a-file"), "x").unwrap();
        let p = d.join("a-file/sub/out.txt");
        let e = write_file_atomically(&p, b"x").unwrap_err();
        let want = format!(
            "cannot write {}: cannot create the folder {}: ",
            p.display(),
            d.join("a-file/sub").display()
        );
        assert!(e.starts_with(&want), "{e}");
        assert_eq!(entries(&d), ["a-file"]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_temporary_file_that_cannot_be_written_leaves_no_other_behind() {
        let d = scratch("temp");
        // A folder where b.txt's temporary file would go: a.txt's temporary
        // file is written first and must be removed again.
        let blocked = temporary(&d.join("b.txt"));
        std::fs::create_dir_all(blocked.join("inside")).unwrap();
        let files = [("a.txt", "a".to_string()), ("b.txt", "b".into())];
        let e = write_files_atomically(&d, &files).unwrap_err();
        assert!(
            e.starts_with(&format!("cannot write {}: ", d.join("b.txt").display())),
            "{e}"
        );
        assert!(!e.contains(".tmp"), "{e}");
        let blocked_name = blocked.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(entries(&d), [blocked_name]);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[test]
    fn a_set_is_renamed_into_place_only_when_every_file_is_written() {
        let d = scratch("set");
        std::fs::create_dir_all(d.join("b.txt/inside")).unwrap();
        std::fs::write(d.join("a.txt"), "old").unwrap();
        // b.txt is a folder: nothing is replaced, and no temporary file is
        // left behind.
        let files = [
            ("a.txt", "new".to_string()),
            ("b.txt", "b".into()),
            ("c.txt", "c".into()),
        ];
        let e = write_files_atomically(&d, &files).unwrap_err();
        assert!(
            e.starts_with(&format!("cannot write {}: ", d.join("b.txt").display())),
            "{e}"
        );
        assert_eq!(entries(&d), ["a.txt", "b.txt"]);
        assert_eq!(std::fs::read_to_string(d.join("a.txt")).unwrap(), "old");
        let ok = [("x.txt", "1".to_string()), ("y.txt", "2".into())];
        write_files_atomically(&d.join("new"), &ok).unwrap();
        assert_eq!(entries(&d.join("new")), ["x.txt", "y.txt"]);
        std::fs::remove_dir_all(&d).unwrap();
    }
}

/// What an interrupted run's `state.json` records of how it was played.
#[derive(Default, serde::Deserialize)]
struct Played {
    /// The commands that played it, the first the one that started it
    /// (empty in a state written before states recorded them).
    #[serde(default)]
    commands: Vec<Vec<String>>,
    /// The seconds they took (0 in a state written before).
    #[serde(default)]
    elapsed_s: f64,
}

/// The commands that have played the run saved in `dir` when `this`
/// command continues it (`resume`): those its `state.json` records, then
/// `this`; and the seconds they took before it. Without `resume`, or with
/// no state that records them, `this` alone and 0.
pub fn played_so_far(
    dir: Option<&Path>,
    resume: bool,
    this: Vec<String>,
) -> (Vec<Vec<String>>, f64) {
    let played = match (dir, resume) {
        (Some(dir), true) => std::fs::read_to_string(dir.join("state.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<Played>(&t).ok())
            .unwrap_or_default(),
        _ => Played::default(),
    };
    let mut commands = played.commands;
    commands.push(this);
    (commands, played.elapsed_s)
}
