//! Fitting the network to labelled positions with candle (feature `train`):
//! the cross-entropy of the teacher's action under the softmax of the legal
//! actions' logits (illegal actions masked out), minimised by AdamW on
//! mini-batches drawn in an order from a seeded generator.
//!
//! Reproducible: the initial weights come from the seed (not candle's own
//! generator), the batches from the seed, and the arithmetic is candle's CPU
//! backend; a test checks that the weights are identical on 1 and 2 threads.

use super::Dataset;
use crate::agents::net::{Layer, NetWeights};
use crate::engine::encode::ACTIONS;
use crate::engine::game::{mix64, Rng};
use candle_core::{Device, Tensor, Var};
use candle_nn::{AdamW, Optimizer, ParamsAdamW};
use rand::{Rng as _, SeedableRng};
use std::sync::atomic::{AtomicBool, Ordering};

/// How to fit.
#[derive(Debug, Clone, PartialEq)]
pub struct FitConfig {
    /// The hidden layers' sizes (`[128]`: 280 -> 128 -> 81).
    pub hidden: Vec<usize>,
    pub epochs: usize,
    pub batch: usize,
    /// AdamW's learning rate (decayed linearly to a tenth over the epochs).
    pub lr: f64,
    pub weight_decay: f64,
    pub seed: u64,
    /// Above 0, positions with the teacher's action values are fitted to
    /// the softmax of those values divided by `soft` (a temperature, in
    /// units of the reward) instead of the teacher's one action; positions
    /// without values keep their one action.
    pub soft: f64,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            hidden: vec![128],
            epochs: 8,
            batch: 256,
            lr: 2e-3,
            weight_decay: 1e-4,
            seed: 1,
            soft: 0.0,
        }
    }
}

/// An epoch's progress: `batches` of its `of` mini-batches done, with
/// their mean training loss; reported at every twentieth of an epoch and
/// when it is done ([`Epoch::done`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Epoch {
    /// The epoch (1 for the first).
    pub index: usize,
    pub loss: f64,
    pub batches: usize,
    pub of: usize,
}

impl Epoch {
    /// Whether the epoch is done (its loss is then the whole epoch's).
    pub fn done(&self) -> bool {
        self.batches == self.of
    }
}

/// Fresh weights reading `inputs` features
/// ([`OBS_LEN`](crate::engine::encode::OBS_LEN), or
/// `OBS_LEN_KNOWN` with the known-cards section): each layer uniform in
/// +-1/sqrt(inputs) (PyTorch's default), from `seed`.
pub fn init(inputs: usize, hidden: &[usize], seed: u64) -> NetWeights {
    let mut rng = Rng::seed_from_u64(mix64(seed ^ 0x1417_0000));
    let mut sizes = vec![inputs];
    sizes.extend_from_slice(hidden);
    sizes.push(ACTIONS);
    let layers = sizes
        .windows(2)
        .map(|w| {
            let bound = 1.0 / (w[0] as f32).sqrt();
            let mut u = || (rng.random::<f32>() * 2.0 - 1.0) * bound;
            Layer {
                inputs: w[0],
                outputs: w[1],
                weight: (0..w[0] * w[1]).map(|_| u()).collect(),
                bias: (0..w[1]).map(|_| u()).collect(),
            }
        })
        .collect();
    NetWeights::new(layers).expect("the shapes are consistent")
}

fn err(e: candle_core::Error) -> String {
    format!("candle: {e}")
}

/// Appends position `i`'s target distribution over the actions: the
/// softmax of the teacher's values over the legal actions at temperature
/// `tau` when every legal action has one, else all on the teacher's action.
fn soft_target(data: &Dataset, i: usize, tau: f32, out: &mut Vec<f32>) {
    let at = out.len();
    out.resize(at + ACTIONS, 0.0);
    let t = &mut out[at..];
    let legal = data.legal[i];
    let q = data.values(i).unwrap_or(&[]);
    let valued = !q.is_empty() && (0..ACTIONS).all(|a| !legal.contains(a) || q[a].is_finite());
    if !valued {
        t[data.label[i] as usize] = 1.0;
        return;
    }
    let top = (0..ACTIONS)
        .filter(|&a| legal.contains(a))
        .map(|a| q[a])
        .fold(f32::NEG_INFINITY, f32::max);
    let mut sum = 0.0;
    for a in 0..ACTIONS {
        if legal.contains(a) {
            t[a] = ((q[a] - top) / tau).exp();
            sum += t[a];
        }
    }
    for v in t.iter_mut() {
        *v /= sum;
    }
}

/// Fits weights to `data`, starting from `start` (or fresh weights of
/// `cfg.hidden`), epoch after epoch; `stop` ends it after the batch in hand.
pub fn fit(
    data: &Dataset,
    start: Option<&NetWeights>,
    cfg: &FitConfig,
    stop: &AtomicBool,
    progress: &mut dyn FnMut(Epoch),
) -> Result<NetWeights, String> {
    if data.is_empty() {
        return Err("no positions to fit".into());
    }
    let dev = Device::Cpu;
    let width = data.width();
    let start = match start {
        Some(w) => w.clone(),
        None => init(width, &cfg.hidden, cfg.seed),
    };
    if start.inputs() != width {
        return Err(format!(
            "the network reads {} features and the positions have {width}",
            start.inputs()
        ));
    }
    let mut vars = Vec::new();
    for l in start.layers() {
        vars.push((
            Var::from_vec(l.weight.clone(), (l.outputs, l.inputs), &dev).map_err(err)?,
            Var::from_vec(l.bias.clone(), l.outputs, &dev).map_err(err)?,
        ));
    }
    let params = ParamsAdamW {
        lr: cfg.lr,
        weight_decay: cfg.weight_decay,
        ..ParamsAdamW::default()
    };
    let all: Vec<Var> = vars
        .iter()
        .flat_map(|(w, b)| [w.clone(), b.clone()])
        .collect();
    let mut opt = AdamW::new(all, params).map_err(err)?;
    let n = data.len();
    let batch = cfg.batch.max(1);
    let mut order: Vec<usize> = (0..n).collect();
    let mut rng = Rng::seed_from_u64(mix64(cfg.seed ^ 0xF17_0000));
    let (mut xb, mut mb, mut yb) = (Vec::new(), Vec::new(), Vec::new());
    let mut tb: Vec<f32> = Vec::new();
    let soft = cfg.soft > 0.0 && !data.q.is_empty();
    'epochs: for epoch in 0..cfg.epochs {
        let frac = epoch as f64 / cfg.epochs.max(1) as f64;
        opt.set_learning_rate(cfg.lr * (1.0 - 0.9 * frac));
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        let (mut sum, mut batches) = (0.0, 0usize);
        let of = n.div_ceil(batch);
        let every = (of / 20).max(1);
        for chunk in order.chunks(batch) {
            if stop.load(Ordering::Relaxed) {
                break 'epochs;
            }
            xb.clear();
            mb.clear();
            yb.clear();
            tb.clear();
            for &i in chunk {
                xb.extend_from_slice(data.features(i));
                let legal = data.legal[i];
                mb.extend((0..ACTIONS).map(|a| if legal.contains(a) { 0f32 } else { -1e9 }));
                yb.push(data.label[i] as u32);
                if soft {
                    soft_target(data, i, cfg.soft as f32, &mut tb);
                }
            }
            let b = chunk.len();
            let x = Tensor::from_slice(&xb, (b, width), &dev).map_err(err)?;
            let mask = Tensor::from_slice(&mb, (b, ACTIONS), &dev).map_err(err)?;
            let y = Tensor::from_slice(&yb, b, &dev).map_err(err)?;
            let mut h = x;
            for (k, (w, bias)) in vars.iter().enumerate() {
                h = h
                    .matmul(&w.as_tensor().t().map_err(err)?)
                    .and_then(|t| t.broadcast_add(bias.as_tensor()))
                    .map_err(err)?;
                if k + 1 < vars.len() {
                    h = h.relu().map_err(err)?;
                }
            }
            let logits = (h + mask).map_err(err)?;
            let loss = if soft {
                let t = Tensor::from_slice(&tb, (b, ACTIONS), &dev).map_err(err)?;
                let logp = candle_nn::ops::log_softmax(&logits, 1).map_err(err)?;
                (t * logp)
                    .and_then(|p| p.sum_all())
                    .and_then(|p| p.affine(-1.0 / b as f64, 0.0))
                    .map_err(err)?
            } else {
                candle_nn::loss::cross_entropy(&logits, &y).map_err(err)?
            };
            opt.backward_step(&loss).map_err(err)?;
            sum += loss.to_scalar::<f32>().map_err(err)? as f64;
            batches += 1;
            if batches % every == 0 || batches == of {
                progress(Epoch {
                    index: epoch + 1,
                    loss: sum / batches as f64,
                    batches,
                    of,
                });
            }
        }
        if !sum.is_finite() {
            return Err(diverged(
                &format!("its loss is not finite at epoch {}", epoch + 1),
                cfg.lr,
            ));
        }
    }
    let mut layers = Vec::new();
    for (w, b) in &vars {
        let ws = w.as_tensor().dims2().map_err(err)?;
        layers.push(Layer {
            inputs: ws.1,
            outputs: ws.0,
            weight: w
                .as_tensor()
                .flatten_all()
                .and_then(|t| t.to_vec1::<f32>())
                .map_err(err)?,
            bias: b.as_tensor().to_vec1::<f32>().map_err(err)?,
        });
    }
    NetWeights::new(layers).map_err(|e| {
        if e.contains("not finite") {
            diverged(&e, cfg.lr)
        } else {
            e
        }
    })
}

/// The error of a fit whose numbers left the finite ones (`what`), at the
/// learning rate `lr`.
fn diverged(what: &str, lr: f64) -> String {
    let lr = if (1e-4..1e6).contains(&lr) {
        format!("{lr}")
    } else {
        format!("{lr:e}")
    };
    format!("the fit diverged ({what}): try a smaller learning rate than {lr}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::StrategySpec;
    use crate::engine::encode::OBS_LEN;
    use crate::engine::rules::Rules;

    fn data() -> Dataset {
        let rules = Rules::builtin("classic");
        let tuned = StrategySpec::load("tuned").unwrap();
        super::super::label(
            &rules,
            &[2, 4],
            &tuned,
            None,
            0..150,
            5,
            false,
            &AtomicBool::new(false),
        )
        .unwrap()
    }

    #[test]
    fn fitting_learns_the_teacher_and_is_the_same_on_any_thread_count() {
        let d = data();
        let cfg = FitConfig {
            hidden: vec![32],
            epochs: 6,
            ..FitConfig::default()
        };
        let before = init(OBS_LEN, &cfg.hidden, cfg.seed);
        let fit_on = |threads: usize| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            let mut seen = Vec::new();
            let w = pool
                .install(|| {
                    fit(&d, None, &cfg, &AtomicBool::new(false), &mut |e| {
                        seen.push(e)
                    })
                })
                .unwrap();
            (w, seen)
        };
        let (one, seen) = fit_on(1);
        // Progress within each epoch (every twentieth of its batches), then
        // the epoch done with its whole loss.
        let losses: Vec<f64> = seen.iter().filter(|e| e.done()).map(|e| e.loss).collect();
        assert_eq!(losses.len(), cfg.epochs);
        assert!(seen.len() > 2 * cfg.epochs, "{} reports", seen.len());
        for w in seen.windows(2) {
            let (a, b) = (w[0], w[1]);
            assert!(a.of > 1 && a.batches >= 1 && a.batches <= a.of);
            if a.done() {
                assert_eq!((b.index, b.batches < b.of), (a.index + 1, true));
            } else {
                assert_eq!(b.index, a.index);
                assert!(b.batches > a.batches);
            }
        }
        let (two, _) = fit_on(2);
        assert_eq!(one, two, "the same weights on 1 and 2 threads");
        assert!(losses.last() < losses.first(), "{losses:?}");
        // The network agrees with the teacher far more than before fitting.
        let (a0, a1) = (d.agreement(&before), d.agreement(&one));
        assert!(a1 > 0.8 && a1 > a0 + 0.2, "{a0} -> {a1}");
    }

    #[test]
    fn the_hand_written_forward_pass_is_candles() {
        // The logits of the runner's forward pass equal candle's matmuls on
        // a two-hidden-layer network, over real positions.
        let d = data();
        let w = init(OBS_LEN, &[24, 16], 3);
        let dev = Device::Cpu;
        let mut hidden = w.buffers();
        let mut mine = [0f32; ACTIONS];
        for i in (0..d.len()).step_by(37) {
            let mut h = Tensor::from_slice(d.features(i), (1, d.width()), &dev).unwrap();
            for (k, l) in w.layers().iter().enumerate() {
                let wt = Tensor::from_slice(&l.weight, (l.outputs, l.inputs), &dev).unwrap();
                let b = Tensor::from_slice(&l.bias, l.outputs, &dev).unwrap();
                h = h
                    .matmul(&wt.t().unwrap())
                    .unwrap()
                    .broadcast_add(&b)
                    .unwrap();
                if k + 1 < w.layers().len() {
                    h = h.relu().unwrap();
                }
            }
            let theirs = h.flatten_all().unwrap().to_vec1::<f32>().unwrap();
            w.logits(d.features(i), d.legal[i], &mut hidden, &mut mine);
            for a in d.legal[i].iter() {
                assert!(
                    (mine[a] - theirs[a]).abs() < 1e-4,
                    "{a}: {} {}",
                    mine[a],
                    theirs[a]
                );
            }
        }
    }

    #[test]
    fn soft_targets_are_the_softmax_of_the_legal_values_or_the_label() {
        use crate::engine::encode::ActionSet;
        let mut legal = ActionSet::default();
        legal.insert(3);
        legal.insert(7);
        let mut q = vec![f32::NAN; 2 * ACTIONS];
        q[3] = 0.6;
        q[7] = 0.5;
        q[ACTIONS + 3] = 0.6; // position 1: action 7 has no value
        let data = Dataset {
            x: vec![0.0; 2 * OBS_LEN],
            legal: vec![legal, legal],
            label: vec![7, 7],
            q,
        };
        let mut t = Vec::new();
        soft_target(&data, 0, 0.1, &mut t);
        soft_target(&data, 1, 0.1, &mut t);
        let e = (-1.0f32).exp();
        assert!((t[3] - 1.0 / (1.0 + e)).abs() < 1e-6);
        assert!((t[7] - e / (1.0 + e)).abs() < 1e-6);
        assert_eq!(t[..ACTIONS].iter().sum::<f32>(), 1.0);
        assert_eq!(
            t[ACTIONS + 7],
            1.0,
            "no value for a legal action: the label"
        );
        assert_eq!(t[ACTIONS..].iter().sum::<f32>(), 1.0);
    }
}
