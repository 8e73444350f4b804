//! Paired speed comparison of two builds of unolab in one process (used by
//! `benches/compare.sh`; not a cargo bench target).
//!
//! The machines this project runs on are shared: the same binary varies by a
//! third between runs. Alternating short samples of the two builds puts both
//! under the same conditions, so the ratio of neighbouring samples is a far
//! steadier figure than either absolute rate.

use std::time::Instant;

macro_rules! config {
    ($k:ident, $games:expr) => {
        $k::sim::RunConfig::new(
            $k::Rules::build({
                let mut file = $k::RuleSetFile::load("classic").unwrap();
                for item in house_rules() {
                    file.apply_house(&item).expect("unknown house rule");
                }
                file
            })
            .unwrap(),
            4,
            &[$k::StrategySpec::Random],
            $games,
            $k::sim::Mode::Round,
            7,
            1,
            false,
        )
        .unwrap()
    };
}

macro_rules! sample {
    ($k:ident, $cfg:expr, $games:expr) => {{
        let mut stats = $k::sim::RunStats::new(&$cfg);
        let start = Instant::now();
        $k::sim::play_games(&$cfg, 0..$games, &mut stats).unwrap();
        let t = start.elapsed().as_secs_f64();
        assert_eq!(stats.rounds, $games);
        t
    }};
}

mod paired;

/// House rules for both sides, from `UNOLAB_COMPARE_HOUSE` (comma-separated,
/// as `--house` takes them), so that the house-rule turn path can be
/// compared too; empty by default (plain classic).
fn house_rules() -> Vec<String> {
    std::env::var("UNOLAB_COMPARE_HOUSE")
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(String::from)
        .collect()
}

fn main() {
    let samples: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("samples must be a number"))
        .unwrap_or(400);
    let games: u64 = 2000;
    let house = house_rules();
    if !house.is_empty() {
        println!("house rules on both sides: {}", house.join(", "));
    }
    let base_cfg = config!(unolab_base, games);
    let new_cfg = config!(unolab, games);
    paired::run(
        samples,
        games,
        ["base", "work tree"],
        "speed-up of the work tree",
        || sample!(unolab_base, base_cfg, games),
        || sample!(unolab, new_cfg, games),
    );
}
