//! Drawing a plot again from the files a run wrote, playing no game.

use std::path::Path;

/// Draws `ladder.svg` in `dir` again from its `ladder.csv`, playing no game:
/// after an update of unolab's plot, a ladder that took hours need not be
/// run again for it. The title names the rules and games per table size the
/// folder's `manifest.json` records (a ladder played with another game
/// count than its file's), else `rules` and `games` as the ladder file
/// `name` gives them; a folder whose manifest is another ladder's is
/// refused. Nothing is written when the file is missing or is not a
/// ladder's.
pub fn redraw_svg(dir: &Path, name: &str, rules: &str, games: u64) -> Result<(), String> {
    let manifest = super::ladder::manifest_of(dir, name)?;
    // An interrupted ladder's plot is marked partial again.
    let partial = manifest
        .as_ref()
        .and_then(|m| m["partial_note"].as_str().map(String::from));
    let (rules, games) = match &manifest {
        Some(m) => (
            m["rules"].as_str().unwrap_or(rules).to_string(),
            m["games"].as_u64().unwrap_or(games),
        ),
        None => (rules.to_string(), games),
    };
    let path = dir.join("ladder.csv");
    let bad = |why: String| format!("cannot redraw from {}: {why}", path.display());
    let mut r = csv::Reader::from_path(&path).map_err(|e| bad(e.to_string()))?;
    let head = r.headers().map_err(|e| bad(e.to_string()))?.clone();
    let col = |name: &str| {
        head.iter()
            .position(|h| h == name)
            .ok_or_else(|| bad(format!("it has no column '{name}' (not a ladder.csv)")))
    };
    let [pl, st, elo, lo, hi, dps] = [
        col("players")?,
        col("strategy")?,
        col("elo")?,
        col("elo_lo95")?,
        col("elo_hi95")?,
        col("decisions_per_second")?,
    ];
    let (mut pts, mut sizes) = (Vec::new(), Vec::new());
    for (i, rec) in r.records().enumerate() {
        let rec = rec.map_err(|e| bad(e.to_string()))?;
        let num = |k: usize| {
            rec.get(k).unwrap_or("").parse::<f64>().map_err(|_| {
                bad(format!(
                    "row {} has no number in column {}",
                    i + 1,
                    head.get(k).unwrap_or("")
                ))
            })
        };
        // An agent without a speed (not timed) has no place on the plot.
        if rec.get(dps).unwrap_or("").is_empty() {
            continue;
        }
        let speed = num(dps)?;
        if !speed.is_finite() || speed <= 0.0 || speed > 1e12 {
            return Err(bad(format!(
                "row {} has no positive number up to 1e12 in column decisions_per_second",
                i + 1
            )));
        }
        // A rating the plot cannot scale to (infinite, or past any a
        // tournament gives) made the axis search run for ever.
        for k in [elo, lo, hi] {
            let x = num(k)?;
            if !x.is_finite() || x.abs() > 1e6 {
                return Err(bad(format!(
                    "row {} has no rating between -1e6 and 1e6 in column {}",
                    i + 1,
                    head.get(k).unwrap_or("")
                )));
            }
        }
        let players = num(pl)? as usize;
        if !sizes.contains(&players) {
            sizes.push(players);
        }
        let name = rec.get(st).unwrap_or("").to_string();
        pts.push((players, name, speed, (num(elo)?, (num(lo)?, num(hi)?))));
    }
    // A ladder interrupted before any agent was timed drew its plot with
    // no point, marked partial: drawn again the same.
    if pts.is_empty() && partial.is_none() {
        return Err(bad("it holds no timed agent".into()));
    }
    let svg = super::plots::ladder(&rules, games, &sizes, &pts, partial.as_deref())?;
    super::write_files_atomically(dir, &[("ladder.svg", svg)])
}
