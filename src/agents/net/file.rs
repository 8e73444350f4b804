//! The weight file of a network ([`super`]'s module documentation says its
//! format): read with every tensor checked, and written.

use super::{Layer, NetWeights};
use crate::engine::encode::ACTIONS;

impl NetWeights {
    /// Reads a safetensors file's bytes (see the module documentation).
    pub fn from_safetensors(bytes: &[u8]) -> Result<NetWeights, String> {
        let bad = |m: &str| format!("not a network weight file: {m}");
        if bytes.len() < 8 {
            return Err(bad("too short"));
        }
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap());
        if n > (bytes.len() - 8) as u64 {
            return Err(bad("the header runs past the end"));
        }
        let data = &bytes[8 + n as usize..];
        let header: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&bytes[8..8 + n as usize])
                .map_err(|e| bad(&format!("header: {e}")))?;
        // Every tensor is a layer's weight or bias, l1 to ln with no gap,
        // each stored apart from the others within the file.
        let mut spans: Vec<(usize, usize, &str)> = Vec::new();
        let mut count = 0;
        for (name, t) in &header {
            if name == "__metadata__" {
                continue;
            }
            let layer = name
                .strip_prefix('l')
                .and_then(|r| r.split_once('.'))
                .filter(|(k, part)| {
                    ["weight", "bias"].contains(part)
                        && !k.starts_with('0')
                        // Digits only: `usize`'s parser takes a `+` too.
                        && k.bytes().all(|b| b.is_ascii_digit())
                        && k.parse::<usize>().is_ok()
                });
            if layer.is_none() {
                return Err(format!(
                    "unknown tensor '{name}' (expected l1.weight, l1.bias, l2.weight, ...)"
                ));
            }
            count = count.max(
                layer
                    .and_then(|(k, _)| k.parse::<usize>().ok())
                    .unwrap_or(0),
            );
            let off: [usize; 2] = serde_json::from_value(t["data_offsets"].clone())
                .map_err(|_| bad(&format!("{name}: data_offsets")))?;
            if off[1] > data.len() {
                return Err(bad(&format!(
                    "{name}: its data runs past the end of the file (the file is cut short?)"
                )));
            }
            spans.push((off[0], off[1], name.as_str()));
        }
        spans.sort();
        for w in spans.windows(2) {
            if w[1].0 < w[0].1 {
                return Err(bad(&format!("{} and {} overlap", w[0].2, w[1].2)));
            }
        }
        type Tensor = Option<(Vec<usize>, Vec<f32>)>;
        let tensor = |name: &str| -> Result<Tensor, String> {
            let Some(t) = header.get(name) else {
                return Ok(None);
            };
            if t["dtype"] != "F32" {
                return Err(format!("{name}: dtype {} (expected F32)", t["dtype"]));
            }
            let shape: Vec<usize> = serde_json::from_value(t["shape"].clone())
                .map_err(|_| bad(&format!("{name}: shape")))?;
            let off: [usize; 2] = serde_json::from_value(t["data_offsets"].clone())
                .map_err(|_| bad(&format!("{name}: data_offsets")))?;
            let len = shape.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
            if off[1] < off[0] || len.and_then(|l| l.checked_mul(4)) != Some(off[1] - off[0]) {
                return Err(bad(&format!(
                    "{name}: data_offsets disagree with the shape"
                )));
            }
            let v = data[off[0]..off[1]]
                .chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap()))
                .collect();
            Ok(Some((shape, v)))
        };
        let mut layers = Vec::new();
        for k in 1..=count {
            let (w, b) = (format!("l{k}.weight"), format!("l{k}.bias"));
            let (Some((ws, wv)), Some((bs, bv))) = (tensor(&w)?, tensor(&b)?) else {
                let missing: Vec<&String> = [&w, &b]
                    .into_iter()
                    .filter(|n| !header.contains_key(*n))
                    .collect();
                return Err(format!(
                    "{} missing (the file has layers up to l{count})",
                    match missing[..] {
                        [one] => format!("{one} is"),
                        _ => format!("{w} and {b} are"),
                    }
                ));
            };
            if ws.len() != 2 || bs.len() != 1 || bs[0] != ws[0] {
                return Err(format!(
                    "{w} has shape {ws:?} and {b} {bs:?} (expected [out, in] and [out])"
                ));
            }
            layers.push(Layer {
                inputs: ws[1],
                outputs: ws[0],
                weight: wv,
                bias: bv,
            });
        }
        NetWeights::new(layers)
    }

    /// The weights as a safetensors file (`metadata`: free text pairs, such
    /// as how the network was trained).
    pub fn to_safetensors(&self, metadata: &[(&str, String)]) -> Vec<u8> {
        let mut header = serde_json::Map::new();
        let mut meta = serde_json::Map::new();
        meta.insert("format".into(), "unolab-net".into());
        meta.insert("obs_len".into(), self.inputs().to_string().into());
        meta.insert("actions".into(), ACTIONS.to_string().into());
        for (k, v) in metadata {
            meta.insert((*k).into(), v.clone().into());
        }
        header.insert("__metadata__".into(), meta.into());
        let mut data: Vec<u8> = Vec::new();
        for (k, l) in self.layers.iter().enumerate() {
            for (name, shape, v) in [
                ("weight", vec![l.outputs, l.inputs], &l.weight),
                ("bias", vec![l.outputs], &l.bias),
            ] {
                let begin = data.len();
                data.extend(v.iter().flat_map(|x| x.to_le_bytes()));
                header.insert(
                    format!("l{}.{name}", k + 1),
                    serde_json::json!({"dtype": "F32", "shape": shape, "data_offsets": [begin, data.len()]}),
                );
            }
        }
        let mut h = serde_json::to_vec(&header).unwrap_or_default();
        // The data starts on an 8-byte boundary (the format's advice).
        while (h.len() + 8) % 8 != 0 {
            h.push(b' ');
        }
        let mut out = (h.len() as u64).to_le_bytes().to_vec();
        out.extend(h);
        out.extend(data);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::{net, wobble};
    use super::*;

    #[test]
    fn weights_go_through_a_file_unchanged_and_bad_files_are_refused() {
        let w = net(16, wobble);
        let bytes = w.to_safetensors(&[("note", "test".into())]);
        assert_eq!(NetWeights::from_safetensors(&bytes).unwrap(), w);
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        assert_eq!((8 + n) % 8, 0, "the data is aligned");
        assert!(NetWeights::from_safetensors(&bytes[..20]).is_err());
        assert!(NetWeights::from_safetensors(b"short").is_err());
        // A network whose input is not the observation is refused.
        let mut bad = w.layers().to_vec();
        bad[0].inputs -= 1;
        let keep = bad[0].inputs * bad[0].outputs;
        bad[0].weight.truncate(keep);
        let e = NetWeights::new(bad).unwrap_err();
        assert!(e.contains("279 inputs"), "{e}");
        let mut nan = w.layers().to_vec();
        nan[1].bias[3] = f32::NAN;
        assert!(NetWeights::new(nan).unwrap_err().contains("not finite"));
        let mut empty = w.layers().to_vec();
        empty[0].outputs = 0;
        let e = NetWeights::new(empty).unwrap_err();
        assert!(e.contains("l1 has 280 inputs and 0 outputs"), "{e}");
    }

    /// `bytes` with its header rewritten by `edit` (the data unchanged).
    fn with_header(
        bytes: &[u8],
        edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>),
    ) -> Vec<u8> {
        let n = u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        let mut h: serde_json::Map<String, serde_json::Value> =
            serde_json::from_slice(&bytes[8..8 + n]).unwrap();
        edit(&mut h);
        let h = serde_json::to_vec(&h).unwrap();
        let mut out = (h.len() as u64).to_le_bytes().to_vec();
        out.extend(h);
        out.extend(&bytes[8 + n..]);
        out
    }

    #[test]
    fn a_weight_file_with_more_less_or_broken_tensors_is_refused_by_name() {
        // A stray tensor was ignored, a missing bias said "no layer", a gap
        // "l1 gives 64 outputs", a file cut short "data_offsets disagree with
        // the shape", and overlapping tensors were read.
        let w = net(16, wobble);
        let bytes = w.to_safetensors(&[]);
        let refused = |b: &[u8]| NetWeights::from_safetensors(b).unwrap_err();
        let end = bytes.len() - 8 - u64::from_le_bytes(bytes[..8].try_into().unwrap()) as usize;
        let mut stray = with_header(&bytes, |h| {
            h.insert(
                "l4.weight".into(),
                serde_json::json!({"dtype": "F32", "shape": [1], "data_offsets": [end, end + 4]}),
            );
        });
        stray.extend(1f32.to_le_bytes());
        let e = refused(&stray);
        assert!(
            e.contains("l3.weight and l3.bias are missing (the file has layers up to l4)"),
            "{e}"
        );
        let e = refused(&with_header(&bytes, |h| {
            h.insert("optimizer.step".into(), serde_json::json!({}));
        }));
        assert!(e.contains("unknown tensor 'optimizer.step'"), "{e}");
        // A layer number with a sign (`usize`'s parser took it: the
        // tensor was ignored, audit 2026-12-07).
        let e = refused(&with_header(&bytes, |h| {
            h.insert("l+1.weight".into(), serde_json::json!({}));
        }));
        assert!(e.contains("unknown tensor 'l+1.weight'"), "{e}");
        let e = refused(&with_header(&bytes, |h| {
            h.remove("l1.bias");
        }));
        assert!(e.contains("l1.bias is missing"), "{e}");
        let e = refused(&with_header(&bytes, |h| {
            for part in ["weight", "bias"] {
                let t = h.remove(&format!("l2.{part}")).unwrap();
                h.insert(format!("l3.{part}"), t);
            }
        }));
        assert!(e.contains("l2.weight and l2.bias are missing"), "{e}");
        let e = refused(&bytes[..bytes.len() - 4]);
        assert!(e.contains("runs past the end of the file"), "{e}");
        let e = refused(&with_header(&bytes, |h| {
            let w1 = h["l1.weight"]["data_offsets"].clone();
            h.get_mut("l2.weight").unwrap()["data_offsets"] = w1;
        }));
        assert!(e.contains("overlap"), "{e}");
        // The digest names the network, not the file's other bytes.
        let noted = w.to_safetensors(&[("note", "other words".into())]);
        assert_eq!(
            NetWeights::from_safetensors(&noted).unwrap().digest(),
            w.digest()
        );
        let mut moved = w.layers().to_vec();
        moved[1].weight[0] += 1.0;
        assert_ne!(NetWeights::new(moved).unwrap().digest(), w.digest());
        assert_eq!(w.digest().len(), 16);
    }
}
