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
            $k::rules::Rules::build($k::RuleSetFile::load("classic").unwrap()).unwrap(),
            4,
            &[$k::strategy::StrategySpec::Random],
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

fn main() {
    let samples: usize = std::env::args()
        .nth(1)
        .map(|s| s.parse().expect("samples must be a number"))
        .unwrap_or(400);
    let games: u64 = 2000;
    let base_cfg = config!(unolab_base, games);
    let new_cfg = config!(unolab, games);
    let (mut base, mut new, mut ratio) = (vec![], vec![], vec![]);
    for i in 0..samples {
        // Alternate which build goes first.
        let (b, n) = if i % 2 == 0 {
            let b = sample!(unolab_base, base_cfg, games);
            (b, sample!(unolab, new_cfg, games))
        } else {
            let n = sample!(unolab, new_cfg, games);
            (sample!(unolab_base, base_cfg, games), n)
        };
        base.push(b);
        new.push(n);
        ratio.push(b / n);
    }
    for v in [&mut base, &mut new, &mut ratio] {
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    }
    let rate = |t: f64| (games as f64 / t).round() as u64;
    let n = samples;
    println!(
        "4-player classic rounds, random in every seat, {n} paired samples of {games} rounds"
    );
    println!(
        "base: best {} median {} rounds/s",
        rate(base[0]),
        rate(base[n / 2])
    );
    println!(
        "work tree: best {} median {} rounds/s",
        rate(new[0]),
        rate(new[n / 2])
    );
    println!(
        "speed-up of the work tree: median {:.3} (quartiles {:.3} to {:.3})",
        ratio[n / 2],
        ratio[n / 4],
        ratio[3 * n / 4]
    );
}
