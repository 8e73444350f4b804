//! `net`: a small neural network policy over the observation features of
//! [`crate::engine::encode`] (the same features and action numbers the Python
//! environments use), with a hand-written forward pass.
//!
//! **The network**: fully connected layers `l1`, `l2`, ..., `lK`, a ReLU after
//! every layer but the last; `l1` takes the [`OBS_LEN`] features (or
//! [`OBS_LEN_KNOWN`]: those and the known-cards section, [`encode_known`]),
//! `lK` gives one logit per action ([`ACTIONS`]). The policy is the legal action with the
//! highest logit (the first on a tie), or with `temperature > 0` an action
//! drawn from the softmax of the legal logits divided by the temperature.
//!
//! **The weight file** is a [safetensors](https://huggingface.co/docs/safetensors)
//! file: an 8-byte little-endian header length `N`, `N` bytes of JSON naming
//! each tensor (`dtype`, `shape`, `data_offsets` into the data), then the
//! data. The tensors are `lK.weight` (`F32`, shape `[out, in]`, row-major,
//! the PyTorch `nn.Linear` layout) and `lK.bias` (`F32`, shape `[out]`), for
//! `K = 1, 2, ...` with no gap. PyTorch's `safetensors.torch.save_file`,
//! candle's `safetensors::save` or [`NetWeights::to_safetensors`] write it
//! ([`mod@file`] reads and writes it).
//!
//! **Speed**: the features are sparse (a hand, one top card, a few counts),
//! so the first layer adds the columns of the non-zero features only, and the
//! last layer computes the logits of the legal actions only. The buffers
//! belong to the strategy: a decision allocates nothing.

use crate::engine::cards::{CardId, CardSet, Color};
use crate::engine::encode::{
    encode_known, encode_update, ActionSet, Decision, DecisionKind, ACTIONS, ACT_COLOR,
    ACT_PLAY_DRAWN, ACT_TARGET, OBS_LEN, OBS_LEN_KNOWN,
};
use crate::engine::game::{Observation, Rng};
use crate::engine::strategy::Strategy;
use rand::Rng as _;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

pub mod file;

/// The `[net]` table of a preset file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetParams {
    /// The weight file (safetensors), relative to the preset file.
    pub weights: String,
    /// 0: the legal action with the highest logit; above 0: an action drawn
    /// from the softmax of the legal logits divided by it.
    #[serde(default)]
    pub temperature: f64,
    /// The network's [`NetWeights::digest`]: filled in when the preset is
    /// loaded; a preset (or a saved run's strategy) that gives it is refused
    /// when its weight file holds another network.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub digest: String,
}

/// One fully connected layer.
#[derive(Debug, Clone, PartialEq)]
pub struct Layer {
    pub inputs: usize,
    pub outputs: usize,
    /// `[outputs][inputs]`, row-major.
    pub weight: Vec<f32>,
    pub bias: Vec<f32>,
}

/// The weights of a network policy.
#[derive(Debug, Clone, PartialEq)]
pub struct NetWeights {
    layers: Vec<Layer>,
    /// The first layer's weights transposed (`[inputs][outputs]`): the
    /// column of each non-zero feature is added in one pass.
    first_t: Vec<f32>,
}

impl NetWeights {
    /// Checks the shapes: `OBS_LEN` or `OBS_LEN_KNOWN` in, `ACTIONS` out,
    /// each layer's inputs the previous one's outputs, finite values.
    pub fn new(layers: Vec<Layer>) -> Result<NetWeights, String> {
        let Some(first) = layers.first() else {
            return Err("the network has no layer (expected l1.weight, l1.bias, ...)".into());
        };
        if first.inputs != OBS_LEN && first.inputs != OBS_LEN_KNOWN {
            return Err(format!(
                "l1 takes {} inputs; the observation has {OBS_LEN} features \
                 ({OBS_LEN_KNOWN} with the known-cards section)",
                first.inputs
            ));
        }
        let last = layers.last().unwrap();
        if last.outputs != ACTIONS {
            return Err(format!(
                "l{} gives {} outputs; there are {ACTIONS} actions",
                layers.len(),
                last.outputs
            ));
        }
        for (i, l) in layers.iter().enumerate() {
            if l.outputs == 0 || l.inputs == 0 {
                return Err(format!(
                    "l{} has {} inputs and {} outputs (each at least 1)",
                    i + 1,
                    l.inputs,
                    l.outputs
                ));
            }
            if l.weight.len() != l.inputs * l.outputs || l.bias.len() != l.outputs {
                return Err(format!("l{}: the weight and bias shapes disagree", i + 1));
            }
            if i > 0 && l.inputs != layers[i - 1].outputs {
                return Err(format!(
                    "l{} takes {} inputs but l{} gives {}",
                    i + 1,
                    l.inputs,
                    i,
                    layers[i - 1].outputs
                ));
            }
            if !l.weight.iter().chain(&l.bias).all(|v| v.is_finite()) {
                return Err(format!("l{} holds a value that is not finite", i + 1));
            }
        }
        let mut first_t = vec![0f32; first.weight.len()];
        for o in 0..first.outputs {
            for i in 0..first.inputs {
                first_t[i * first.outputs + o] = first.weight[o * first.inputs + i];
            }
        }
        Ok(NetWeights { layers, first_t })
    }

    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// A fingerprint of the network (64-bit FNV-1a over every layer's shape,
    /// weights and biases, 16 hex digits): two weight files with the same
    /// digest hold the same network. Recorded with a preset's parameters, so
    /// that a saved run is not continued, nor shards merged, with another
    /// network under the same file name.
    pub fn digest(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: [u8; 4]| {
            for b in bytes {
                h ^= b as u64;
                h = h.wrapping_mul(0x0000_0100_0000_01b3);
            }
        };
        for l in &self.layers {
            eat((l.inputs as u32).to_le_bytes());
            eat((l.outputs as u32).to_le_bytes());
            for v in l.weight.iter().chain(&l.bias) {
                eat(v.to_bits().to_le_bytes());
            }
        }
        format!("{h:016x}")
    }

    /// The features the network reads: [`OBS_LEN`] or [`OBS_LEN_KNOWN`].
    pub fn inputs(&self) -> usize {
        self.layers[0].inputs
    }

    /// Whether the network reads the known-cards section too.
    pub fn reads_known(&self) -> bool {
        self.inputs() == OBS_LEN_KNOWN
    }

    /// The same network reading the known-cards section too, with zero
    /// weights on it: it plays exactly as before until fitted further.
    pub fn with_known(&self) -> NetWeights {
        if self.reads_known() {
            return self.clone();
        }
        let mut layers = self.layers.clone();
        let l = &mut layers[0];
        let mut weight = Vec::with_capacity(l.outputs * OBS_LEN_KNOWN);
        for row in l.weight.chunks_exact(l.inputs) {
            weight.extend_from_slice(row);
            weight.resize(weight.len() + OBS_LEN_KNOWN - OBS_LEN, 0.0);
        }
        l.weight = weight;
        l.inputs = OBS_LEN_KNOWN;
        NetWeights::new(layers).expect("only the first layer's inputs grew")
    }

    /// Computes the logits of the actions in `legal` into `out` (others are
    /// left as they are), from the features `x`, using `hidden` (one buffer per
    /// hidden layer, each of that layer's size: [`NetWeights::buffers`]).
    pub fn logits(&self, x: &[f32], legal: ActionSet, hidden: &mut [Vec<f32>], out: &mut [f32]) {
        let x = &x[..self.inputs()];
        let n = self.layers.len();
        if n == 1 {
            let l = &self.layers[0];
            for a in legal.iter() {
                out[a] = l.bias[a] + dot(&l.weight[a * l.inputs..(a + 1) * l.inputs], x);
            }
            return;
        }
        // The first layer: the columns of the non-zero features.
        let first = &self.layers[0];
        let h = &mut hidden[0][..first.outputs];
        h.copy_from_slice(&first.bias);
        for (i, &v) in x.iter().enumerate() {
            if v != 0.0 {
                let col = &self.first_t[i * first.outputs..(i + 1) * first.outputs];
                for (hj, &w) in h.iter_mut().zip(col) {
                    *hj += v * w;
                }
            }
        }
        relu(h);
        // The middle layers, dense.
        for k in 1..n - 1 {
            let l = &self.layers[k];
            let (done, rest) = hidden.split_at_mut(k);
            let prev = &done[k - 1][..l.inputs];
            let h = &mut rest[0][..l.outputs];
            for (o, ho) in h.iter_mut().enumerate() {
                *ho = l.bias[o] + dot(&l.weight[o * l.inputs..(o + 1) * l.inputs], prev);
            }
            relu(h);
        }
        // The last layer: the legal actions only.
        let l = &self.layers[n - 1];
        let prev = &hidden[n - 2][..l.inputs];
        for a in legal.iter() {
            out[a] = l.bias[a] + dot(&l.weight[a * l.inputs..(a + 1) * l.inputs], prev);
        }
    }

    /// The buffers [`NetWeights::logits`] needs.
    pub fn buffers(&self) -> Vec<Vec<f32>> {
        self.layers[..self.layers.len() - 1]
            .iter()
            .map(|l| vec![0.0; l.outputs])
            .collect()
    }
}

#[inline]
fn dot(a: &[f32], b: &[f32]) -> f32 {
    // Eight partial sums: the compiler vectorises the loop.
    let mut acc = [0f32; 8];
    let (ac, ar) = a.split_at(a.len() / 8 * 8);
    let (bc, br) = b.split_at(ac.len());
    for (x, y) in ac.chunks_exact(8).zip(bc.chunks_exact(8)) {
        for i in 0..8 {
            acc[i] += x[i] * y[i];
        }
    }
    let mut s: f32 = acc.iter().sum();
    for (x, y) in ar.iter().zip(br) {
        s += x * y;
    }
    s
}

#[inline]
fn relu(h: &mut [f32]) {
    for v in h {
        *v = v.max(0.0);
    }
}

/// The legal action a policy picks from `logits`: the highest (the first on
/// a tie) at temperature 0, else drawn from the softmax at `temperature`.
pub fn pick(logits: &[f32], legal: ActionSet, temperature: f64, rng: &mut Rng) -> usize {
    let mut best = usize::MAX;
    for a in legal.iter() {
        if best == usize::MAX || logits[a] > logits[best] {
            best = a;
        }
    }
    if temperature <= 0.0 || legal.len() < 2 {
        return best;
    }
    let t = temperature as f32;
    let top = logits[best];
    let total: f32 = legal.iter().map(|a| ((logits[a] - top) / t).exp()).sum();
    let mut u = rng.random::<f32>() * total;
    for a in legal.iter() {
        u -= ((logits[a] - top) / t).exp();
        if u <= 0.0 {
            return a;
        }
    }
    best
}

/// A network preset, validated and loaded.
#[derive(Debug, Clone, PartialEq)]
pub struct NetSpec {
    pub name: String,
    pub params: NetParams,
    pub weights: Arc<NetWeights>,
}

/// The network strategy: the features, the hidden layers and the logits in
/// buffers of its own.
pub struct NetStrategy {
    name: String,
    weights: Arc<NetWeights>,
    temperature: f64,
    x: Vec<f32>,
    seen: Option<CardSet>,
    hidden: Vec<Vec<f32>>,
    logits: [f32; ACTIONS],
    decisions: u64,
}

impl NetStrategy {
    pub fn new(spec: &NetSpec) -> NetStrategy {
        NetStrategy {
            name: spec.name.clone(),
            weights: spec.weights.clone(),
            temperature: spec.params.temperature,
            x: vec![0.0; spec.weights.inputs()],
            seen: None,
            hidden: spec.weights.buffers(),
            logits: [0.0; ACTIONS],
            decisions: 0,
        }
    }

    /// Decisions taken through the network so far (benchmarks).
    pub fn decisions(&self) -> u64 {
        self.decisions
    }

    /// The network's logits for a decision of `kind` (`card`: the drawn or
    /// jump-in card) whose legal actions are `legal` (only those entries are
    /// computed). Allocates nothing.
    pub fn logits_for(
        &mut self,
        obs: &Observation,
        kind: DecisionKind,
        card: Option<CardId>,
        legal: ActionSet,
    ) -> &[f32; ACTIONS] {
        self.features(obs, kind, card);
        self.weights
            .logits(&self.x, legal, &mut self.hidden, &mut self.logits);
        &self.logits
    }

    /// The features of a decision into `x` (the known-cards section too when
    /// the network reads it).
    #[inline]
    fn features(&mut self, obs: &Observation, kind: DecisionKind, card: Option<CardId>) {
        encode_update(obs, kind, card, &mut self.x, &mut self.seen);
        if self.x.len() > OBS_LEN {
            encode_known(obs, &mut self.x[OBS_LEN..]);
        }
    }

    /// The action for decision `d` (its legal set has at least one action).
    fn act(
        &mut self,
        obs: &Observation,
        d: Decision,
        card: Option<CardId>,
        rng: &mut Rng,
    ) -> usize {
        let legal = d.legal(obs);
        if legal.len() == 1 {
            return legal.iter().next().unwrap_or(0);
        }
        self.decisions += 1;
        self.features(obs, d.kind, card);
        self.weights
            .logits(&self.x, legal, &mut self.hidden, &mut self.logits);
        pick(&self.logits, legal, self.temperature, rng)
    }
}

/// The decision the engine asks, as the encoding describes it.
fn decision(obs: &Observation, kind: DecisionKind, cards: CardSet, may_draw: bool) -> Decision {
    Decision {
        seat: obs.seat(),
        kind,
        cards,
        may_draw,
    }
}

/// Whether a play decision may draw (as the Python environments say).
pub fn may_draw(obs: &Observation, playable: CardSet) -> bool {
    let s = obs.settings();
    playable.is_empty() || (!s.force_play && s.may_draw_when_playable)
}

impl Strategy for NetStrategy {
    fn name(&self) -> &str {
        &self.name
    }
    fn ask_without_choice(&self) -> bool {
        false
    }
    fn choose_play(
        &mut self,
        obs: &Observation,
        playable: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let d = decision(obs, DecisionKind::Play, playable, may_draw(obs, playable));
        let a = self.act(obs, d, None, rng);
        crate::engine::encode::card_of_action(&obs.rules().deck, playable, a)
    }
    fn play_drawn(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let d = decision(obs, DecisionKind::PlayDrawn, CardSet::single(card), false);
        self.act(obs, d, Some(card), rng) == ACT_PLAY_DRAWN
    }
    fn choose_color(&mut self, obs: &Observation, rng: &mut Rng) -> Color {
        let d = decision(obs, DecisionKind::Color, CardSet::EMPTY, false);
        Color::from_index(self.act(obs, d, None, rng).saturating_sub(ACT_COLOR) & 3)
    }
    fn call_uno(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        let d = decision(obs, DecisionKind::Uno, CardSet::EMPTY, false);
        self.act(obs, d, None, rng) == crate::engine::encode::ACT_UNO
    }
    fn choose_target(&mut self, obs: &Observation, rng: &mut Rng) -> u8 {
        let d = decision(obs, DecisionKind::Target, CardSet::EMPTY, false);
        let a = self.act(obs, d, None, rng);
        obs.seat_after((a.saturating_sub(ACT_TARGET) + 1) as u8)
    }
    fn answer_stack(
        &mut self,
        obs: &Observation,
        answers: CardSet,
        rng: &mut Rng,
    ) -> Option<CardId> {
        let d = decision(obs, DecisionKind::Stack, answers, true);
        let a = self.act(obs, d, None, rng);
        crate::engine::encode::card_of_action(&obs.rules().deck, answers, a)
    }
    fn challenge(&mut self, obs: &Observation, rng: &mut Rng) -> bool {
        let d = decision(obs, DecisionKind::Challenge, CardSet::EMPTY, false);
        self.act(obs, d, None, rng) == crate::engine::encode::ACT_CHALLENGE
    }
    fn jump_in(&mut self, obs: &Observation, card: CardId, rng: &mut Rng) -> bool {
        let d = decision(obs, DecisionKind::JumpIn, CardSet::single(card), false);
        self.act(obs, d, Some(card), rng) == crate::engine::encode::ACT_JUMP
    }
    fn hears_notices(&self) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::StrategySpec;
    use crate::engine::encode::encode;
    use crate::engine::game::{game_rngs, Agents, Game, NoRecord};
    use crate::engine::rules::Rules;

    /// A network of one hidden layer whose weights are `f(layer, out, in)`.
    pub(super) fn net(hidden: usize, f: impl Fn(usize, usize, usize) -> f32) -> NetWeights {
        let sizes = [OBS_LEN, hidden, ACTIONS];
        let layers = (0..2)
            .map(|k| Layer {
                inputs: sizes[k],
                outputs: sizes[k + 1],
                weight: (0..sizes[k] * sizes[k + 1])
                    .map(|j| f(k, j / sizes[k], j % sizes[k]))
                    .collect(),
                bias: (0..sizes[k + 1]).map(|o| f(k, o, usize::MAX)).collect(),
            })
            .collect();
        NetWeights::new(layers).unwrap()
    }

    pub(super) fn wobble(k: usize, o: usize, i: usize) -> f32 {
        // (Wrapping: the bias rows pass i = usize::MAX.)
        let h = (k * 7919 + o * 104_729).wrapping_add(i.wrapping_mul(31)) % 1000;
        h as f32 / 1000.0 - 0.5
    }

    #[test]
    fn a_network_widened_to_the_known_cards_plays_as_before() {
        // Zero weights on the known-cards section: the same logits whatever
        // the section holds; a weight on it moves them; the file keeps it.
        let w = net(16, wobble);
        let wide = w.with_known();
        assert!(wide.reads_known() && !w.reads_known());
        assert_eq!(wide.inputs(), OBS_LEN_KNOWN);
        assert_eq!(wide.with_known(), wide);
        let rules = Rules::builtin("classic");
        let mut g = Game::new(&rules, 3, 4);
        g.start_match(None);
        let all = ActionSet(u128::MAX >> (128 - ACTIONS));
        let (mut h1, mut h2) = (w.buffers(), wide.buffers());
        let (mut a, mut b) = ([0f32; ACTIONS], [0f32; ACTIONS]);
        let mut x = vec![0f32; OBS_LEN_KNOWN];
        encode(&Observation::of(&g, 0), DecisionKind::Play, None, &mut x);
        for (i, v) in x[OBS_LEN..].iter_mut().enumerate() {
            *v = (i % 4) as f32;
        }
        w.logits(&x, all, &mut h1, &mut a);
        wide.logits(&x, all, &mut h2, &mut b);
        assert_eq!(a, b);
        let mut layers = wide.layers().to_vec();
        for o in 0..16 {
            layers[0].weight[o * OBS_LEN_KNOWN + OBS_LEN + 1] = 1.0;
        }
        let moved = NetWeights::new(layers).unwrap();
        moved.logits(&x, all, &mut h2, &mut b);
        assert_ne!(a, b);
        let bytes = moved.to_safetensors(&[]);
        assert_eq!(NetWeights::from_safetensors(&bytes).unwrap(), moved);
    }

    #[test]
    fn the_sparse_forward_pass_is_the_dense_one() {
        // Plain matrix products over the features of real positions.
        let w = net(24, wobble);
        let rules = Rules::builtin("classic");
        let mut g = Game::new(&rules, 3, 4);
        g.start_match(None);
        let mut hidden = w.buffers();
        let mut got = [0f32; ACTIONS];
        let mut x = [0f32; OBS_LEN];
        let all = ActionSet(u128::MAX >> (128 - ACTIONS));
        for seat in 0..3u8 {
            let obs = Observation::of(&g, seat);
            encode(&obs, DecisionKind::Play, None, &mut x);
            w.logits(&x, all, &mut hidden, &mut got);
            let l = w.layers();
            let h: Vec<f32> = (0..24)
                .map(|o| {
                    let s: f32 = (0..OBS_LEN)
                        .map(|i| l[0].weight[o * OBS_LEN + i] * x[i])
                        .sum();
                    (s + l[0].bias[o]).max(0.0)
                })
                .collect();
            for a in 0..ACTIONS {
                let s: f32 = (0..24).map(|j| l[1].weight[a * 24 + j] * h[j]).sum();
                let want = s + l[1].bias[a];
                assert!((got[a] - want).abs() < 1e-4, "{a}: {} vs {want}", got[a]);
            }
        }
    }

    #[test]
    fn the_strategy_takes_the_legal_action_of_highest_logit() {
        // The logit of action a is its bias, +a or -a: the network prefers
        // the highest or the lowest legal action number.
        let make = |sign: f32| {
            let w = net(8, move |k, o, i| {
                if k == 1 && i == usize::MAX {
                    sign * o as f32
                } else {
                    0.0
                }
            });
            NetStrategy::new(&NetSpec {
                name: "n".into(),
                params: NetParams {
                    weights: String::new(),
                    temperature: 0.0,
                    digest: String::new(),
                },
                weights: Arc::new(w),
            })
        };
        let (mut high, mut low) = (make(1.0), make(-1.0));
        let rules = Rules::builtin("classic");
        let d = &rules.deck;
        let mut checked = 0;
        for seed in 0..20 {
            let mut g = Game::new(&rules, 3, seed);
            g.start_match(None);
            let mut seats: Vec<crate::agents::RandomStrategy> =
                (0..3).map(|_| crate::agents::RandomStrategy).collect();
            let (_, r) = game_rngs(seed, 0);
            let mut agents = Agents {
                seats: &mut seats[..],
                rng: r,
            };
            let first = g.begin_round(&mut agents, &mut NoRecord).first_player;
            let obs = Observation::of(&g, first);
            let hand = obs.hand();
            let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(seed);
            // Drawing (59) beats every card; the lowest kind of the hand.
            assert_eq!(high.choose_play(&obs, hand, &mut rng), None);
            let lowest = hand
                .iter()
                .min_by_key(|&c| crate::engine::encode::kind_index(d.kind(c)))
                .unwrap();
            let got = low.choose_play(&obs, hand, &mut rng).unwrap();
            assert_eq!(d.kind(got), d.kind(lowest));
            assert!(hand.contains(got));
            assert_eq!(high.choose_color(&obs, &mut rng), Color::Blue);
            assert_eq!(low.choose_color(&obs, &mut rng), Color::Red);
            assert_eq!(high.choose_target(&obs, &mut rng), obs.seat_after(2));
            assert_eq!(low.choose_target(&obs, &mut rng), obs.seat_after(1));
            let c = hand.first().unwrap();
            assert!(
                !high.play_drawn(&obs, c, &mut rng),
                "keep (61) beats play (60)"
            );
            assert!(low.play_drawn(&obs, c, &mut rng));
            assert!(!high.call_uno(&obs, &mut rng), "67 beats 66");
            assert!(low.call_uno(&obs, &mut rng));
            checked += 1;
        }
        assert_eq!(checked, 20);
        assert_eq!(high.decisions(), 20 * 5);
    }

    #[test]
    fn sampling_follows_the_softmax() {
        let mut rng = <Rng as rand::SeedableRng>::seed_from_u64(3);
        let mut logits = [0f32; ACTIONS];
        logits[2] = (3f32).ln();
        let mut legal = ActionSet::EMPTY;
        legal.insert(2);
        legal.insert(7);
        let n = 20_000;
        let twos = (0..n)
            .filter(|_| pick(&logits, legal, 1.0, &mut rng) == 2)
            .count();
        let p = twos as f64 / n as f64;
        assert!((p - 0.75).abs() < 0.02, "{p}");
        assert_eq!(pick(&logits, legal, 0.0, &mut rng), 2);
    }

    #[test]
    fn the_shipped_preset_loads_and_bad_net_presets_are_refused() {
        let s = StrategySpec::load("net").unwrap();
        assert_eq!(s.base(), "net");
        let e = StrategySpec::parse("name = \"x\"\nbase = \"net\"\n", "f")
            .unwrap_err()
            .to_string();
        assert!(e.contains("[net]"), "{e}");
        let e = StrategySpec::parse(
            "name = \"x\"\nbase = \"net\"\n[net]\nweights = \"nowhere.safetensors\"\n",
            "f",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("nowhere.safetensors"), "{e}");
        let e = StrategySpec::parse(
            "name = \"x\"\nbase = \"net\"\n[net]\nweights = \"net.safetensors\"\ntemperature = -1\n",
            "f",
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("temperature"), "{e}");
        // A network can be a search's rollout policy.
        let s = StrategySpec::parse(
            "name = \"p\"\nbase = \"pimc\"\n[search]\niterations = 2\nrollout = \"net\"\n",
            "f",
        )
        .unwrap();
        assert_eq!(s.base(), "pimc");
    }
}
