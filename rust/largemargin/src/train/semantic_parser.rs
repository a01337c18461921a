//! The semantic parser of the thesis' chapter 6.2 (OSPAS): a sentence's meaning representations
//! (MRs, `REL(A0, A1, ...)`) are predicted in tagging steps. Symbol labelling aligns each word with
//! a symbol (or none); then, for each word labelled with a relation symbol, role labelling tags the
//! other symbol words with their role in that relation (or none). Both taggers are trained online
//! by `solver::ospas` from the bag of the candidate MRs: the symbol tagger from the bag of their
//! symbols, padded with empty symbols to the sentence's length; the role tagger, for a relation
//! symbol, from the (symbol, role) pairs of the candidate MRs of that relation, a word whose symbol
//! has no such pair taking the empty role.
//!
//! Features are one-hot windows, as in the thesis: the symbol tagger sees the words around a word;
//! the role tagger sees a wider window of words and of the symbols just predicted, the word's
//! distance to the relation word, and which side of it the word lies on. Ids are laid out so that
//! a vocabulary that grows (new words and symbols in `partial_fit`) only appends features.

use rayon::prelude::*;

use crate::error::{Error, Result};
use crate::runtime::control::Control;
use crate::runtime::rng::Rng;
use crate::solver::ospas::{best_label, label_from_bag, BagOutcome, BagProblem, LinearTagger, Strategy, NOT_IN_BAG};

/// A word id the vocabulary does not hold (at prediction: it has no features).
pub const UNKNOWN_WORD: u32 = u32::MAX;
/// The role of an MR's relation symbol, in `MrPair::role`.
pub const REL: u32 = u32::MAX;
/// Word id 0 marks the positions beyond the sentence's ends; symbol 0 and role 0 are "none".
pub const BOUNDARY: u32 = 0;
/// Distances to the relation word are told apart up to this many words on each side.
const DISTANCE_BUCKETS: usize = 4;
/// Relation words between a word and the relation word are counted up to this many: in "the girl
/// hoped the baby brings a cookie", "girl" is two words from "brings" like "baby" is one, but a
/// relation ("hoped") stands between it and "brings", which is what keeps it out of that MR.
const BETWEEN_BUCKETS: usize = 3;

/// The parser's vocabulary sizes and windows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParserShape {
    /// Word ids 0..words (0: the sentence boundary).
    pub words: usize,
    /// Symbol ids 0..symbols (0: no symbol).
    pub symbols: usize,
    /// Role ids 0..roles (0: no role); the relation's own role (REL) is not a label.
    pub roles: usize,
    /// Words the symbol tagger sees around a word (odd: the word in the middle).
    pub symbol_window: usize,
    /// Words and symbols the role tagger sees around a word (odd).
    pub role_window: usize,
}

impl ParserShape {
    /// Refuses even or oversized windows and an empty vocabulary.
    pub fn check(&self) -> Result<()> {
        for (name, w) in [("symbol window", self.symbol_window), ("role window", self.role_window)] {
            if w % 2 == 0 || w > 101 {
                return Err(Error::InvalidParameter(format!("the {name} must be an odd size up to 101, got {w}")));
            }
        }
        if self.words == 0 || self.symbols < 2 || self.roles < 1 {
            return Err(Error::InvalidData(format!(
                "a parser needs words and at least one symbol besides none (got {} words, {} symbols, {} roles)",
                self.words, self.symbols, self.roles
            )));
        }
        Ok(())
    }

    /// Features of the symbol tagger: (word, offset), word-major.
    pub fn symbol_features(&self) -> usize {
        self.words * self.symbol_window
    }

    /// Role-tagger feature slots of one word or symbol.
    fn role_slots(&self) -> usize {
        self.role_window + 2 * DISTANCE_BUCKETS + 1 + 3 + 2 * BETWEEN_BUCKETS + 4
    }

    /// Features of the role tagger: words and symbols interleaved (2 a + kind), each with
    /// `role_slots` slots.
    pub fn role_features(&self) -> usize {
        2 * self.words.max(self.symbols) * self.role_slots()
    }

    fn word_slot(&self, word: u32, slot: usize) -> u32 {
        ((2 * word as usize) * self.role_slots() + slot) as u32
    }

    fn symbol_slot(&self, symbol: u32, slot: usize) -> u32 {
        ((2 * symbol as usize + 1) * self.role_slots() + slot) as u32
    }

    /// The symbol tagger's features of word i: the words in the window around it.
    fn symbol_x(&self, words: &[u32], i: usize) -> Vec<u32> {
        let h = self.symbol_window / 2;
        let mut x = Vec::with_capacity(self.symbol_window);
        for o in 0..self.symbol_window {
            let at = (i + o).checked_sub(h).filter(|&j| j < words.len());
            let w = at.map_or(BOUNDARY, |j| words[j]);
            if w != UNKNOWN_WORD {
                x.push((w as usize * self.symbol_window + o) as u32);
            }
        }
        x
    }

    /// The role tagger's features of word i for the relation word p: the words and symbols in the
    /// window, the relation symbol with the distance bucket, the word with it, the word's symbol
    /// with the side it lies on, and both symbols with the side and the number of relation words
    /// (`between`) that stand between the two.
    fn role_x(&self, words: &[u32], symbols: &[u32], i: usize, p: usize, between: usize, arg_rel: bool) -> Vec<u32> {
        let (h, b) = (self.role_window / 2, DISTANCE_BUCKETS as isize);
        let mut x = Vec::with_capacity(2 * self.role_window + 3);
        for o in 0..self.role_window {
            let at = (i + o).checked_sub(h).filter(|&j| j < words.len());
            let w = at.map_or(BOUNDARY, |j| words[j]);
            if w != UNKNOWN_WORD {
                x.push(self.word_slot(w, o));
            }
            if let Some(j) = at {
                x.push(self.symbol_slot(symbols[j], o));
            }
        }
        let d = (i as isize - p as isize).clamp(-b, b);
        let bucket = self.role_window + (d + b) as usize;
        x.push(self.symbol_slot(symbols[p], bucket));
        if words[i] != UNKNOWN_WORD {
            x.push(self.word_slot(words[i], bucket));
        }
        let side = self.role_window + 2 * DISTANCE_BUCKETS + 1 + (d.signum() + 1) as usize;
        x.push(self.symbol_slot(symbols[i], side));
        let crossed = side + 3 + usize::from(i > p) * BETWEEN_BUCKETS + between.min(BETWEEN_BUCKETS - 1);
        x.push(self.symbol_slot(symbols[i], crossed));
        x.push(self.symbol_slot(symbols[p], crossed));
        // what the relation takes: a clause (a relation symbol) or a thing, on either side
        let base = side + 3 + 2 * BETWEEN_BUCKETS;
        x.push(self.symbol_slot(symbols[p], base + 2 * usize::from(i > p) + usize::from(arg_rel)));
        // the words between the two, on either side ("and", "that", "to" end or open a clause)
        let (a, b) = if i < p { (i + 1, p) } else { (p + 1, i) };
        for &w in &words[a..b] {
            if w != UNKNOWN_WORD {
                x.push(self.word_slot(w, base + 2 * usize::from(i > p)));
            }
        }
        x.sort_unstable();
        x.dedup();
        x
    }
}

/// One (symbol, role) pair of an MR; `role == REL` for its relation symbol.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct MrPair {
    /// The symbol, 1..symbols.
    pub symbol: u32,
    /// The role, 1..roles, or `REL`.
    pub role: u32,
}

/// Sentences as word ids, CSR-style: sentence s is `words[ptr[s]..ptr[s + 1]]`.
#[derive(Clone, Copy, Debug)]
pub struct Sentences<'a> {
    /// Offsets, one more than the sentences.
    pub ptr: &'a [usize],
    /// Word ids (1..words, or `UNKNOWN_WORD`).
    pub words: &'a [u32],
}

impl<'a> Sentences<'a> {
    /// Number of sentences.
    pub fn len(&self) -> usize {
        self.ptr.len().saturating_sub(1)
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Sentence s's word ids.
    pub fn get(&self, s: usize) -> &'a [u32] {
        &self.words[self.ptr[s]..self.ptr[s + 1]]
    }

    fn check(&self, shape: &ParserShape, training: bool) -> Result<()> {
        check_offsets(self.ptr, self.words.len(), "sentence")?;
        for s in 0..self.len() {
            let w = self.get(s);
            if training && w.is_empty() {
                return Err(Error::InvalidData(format!("sentence {s} has no tokens")));
            }
            for &id in w {
                let known = id != BOUNDARY && (id as usize) < shape.words;
                if !(known || (!training && id == UNKNOWN_WORD)) {
                    return Err(Error::InvalidData(format!("sentence {s}: word id {id} is not in 1..{}", shape.words)));
                }
            }
        }
        Ok(())
    }
}

fn check_offsets(ptr: &[usize], total: usize, what: &str) -> Result<()> {
    if ptr.first() != Some(&0) || ptr.last() != Some(&total) || ptr.windows(2).any(|w| w[1] < w[0]) {
        return Err(Error::InvalidData(format!("{what} offsets must rise from 0 to {total}")));
    }
    Ok(())
}

/// Each sentence's candidate MRs: sentence s has MRs `mr_ptr[s]..mr_ptr[s + 1]`, MR j the pairs
/// `pairs[pair_ptr[j]..pair_ptr[j + 1]]`; and the bag of symbols the symbol tagger learns from,
/// (symbol, copies) entries `bag[bag_ptr[s]..bag_ptr[s + 1]]`, empty symbols included.
#[derive(Clone, Copy, Debug)]
pub struct Supervision<'a> {
    /// Offsets into the MRs, one more than the sentences.
    pub mr_ptr: &'a [usize],
    /// Offsets into `pairs`, one more than the MRs.
    pub pair_ptr: &'a [usize],
    /// Every MR's pairs.
    pub pairs: &'a [MrPair],
    /// Offsets into `bag`, one more than the sentences.
    pub bag_ptr: &'a [usize],
    /// (symbol, copies) entries.
    pub bag: &'a [(u32, u32)],
    /// Per sentence, how many symbols and roles the stream has met up to it (ids are given in
    /// the order they are met): the taggers neither predict nor push the others yet.
    pub known: &'a [(u32, u32)],
    /// Per symbol, the first sentence where a candidate MR makes it a relation (0 for a relation
    /// met in an earlier call, `u32::MAX` for none): a role pass runs for it from there on.
    pub rel_since: &'a [u32],
}

impl Supervision<'_> {
    fn mrs(&self, s: usize) -> impl Iterator<Item = &[MrPair]> + '_ {
        (self.mr_ptr[s]..self.mr_ptr[s + 1]).map(move |j| &self.pairs[self.pair_ptr[j]..self.pair_ptr[j + 1]])
    }

    fn check(&self, sentences: &Sentences<'_>, shape: &ParserShape) -> Result<()> {
        let n = sentences.len();
        if self.mr_ptr.len() != n + 1
            || self.bag_ptr.len() != n + 1
            || self.known.len() != n
            || self.rel_since.len() != shape.symbols
        {
            return Err(Error::InvalidData(format!("{n} sentences but supervision for another number")));
        }
        check_offsets(self.mr_ptr, self.pair_ptr.len().saturating_sub(1), "MR")?;
        check_offsets(self.pair_ptr, self.pairs.len(), "MR pair")?;
        check_offsets(self.bag_ptr, self.bag.len(), "bag")?;
        for s in 0..n {
            if self.bag_ptr[s] == self.bag_ptr[s + 1] {
                return Err(Error::InvalidData(format!("the bag of sentence {s} is empty")));
            }
            let (ks, kr) = (self.known[s].0 as usize, self.known[s].1 as usize);
            if ks > shape.symbols || kr > shape.roles {
                return Err(Error::InvalidData(format!("sentence {s}: more labels known than the parser has")));
            }
            for &(symbol, copies) in &self.bag[self.bag_ptr[s]..self.bag_ptr[s + 1]] {
                if symbol as usize >= ks || copies == 0 {
                    return Err(Error::InvalidData(format!("sentence {s}: bag entry ({symbol}, {copies}) is invalid")));
                }
            }
            for (j, mr) in self.mrs(s).enumerate() {
                let rels = mr.iter().filter(|p| p.role == REL).count();
                if rels != 1 {
                    return Err(Error::InvalidData(format!("MR {j} of sentence {s} has {rels} REL pairs, not one")));
                }
                for p in mr {
                    let bad_role = p.role != REL && (p.role == 0 || p.role as usize >= kr);
                    if p.symbol == 0 || p.symbol as usize >= ks || bad_role {
                        return Err(Error::InvalidData(format!(
                            "MR {j} of sentence {s}: pair ({}, {}) is out of range",
                            p.symbol, p.role
                        )));
                    }
                }
            }
        }
        Ok(())
    }
}

/// How the parser trains.
#[derive(Clone, Copy, Debug)]
pub struct ParserParams {
    /// The bound on each step, for both taggers; positive.
    pub c: f64,
    /// The order a sweep tries the words in.
    pub strategy: Strategy,
    /// Passes over the sentences, in their order.
    pub epochs: usize,
}

/// What a training run did.
#[derive(Clone, Copy, Debug, Default)]
pub struct ParserStats {
    /// Sentences trained on (over all epochs).
    pub sentences: u64,
    /// Symbol tagger: steps, and predictions tried.
    pub symbol: BagOutcome,
    /// Role tagger: steps, and predictions tried.
    pub role: BagOutcome,
    /// Role-labelling passes (one per relation word).
    pub role_passes: u64,
}

/// The two taggers and which symbols are relations.
#[derive(Clone, Debug)]
pub struct SemanticParser {
    shape: ParserShape,
    is_rel: Vec<bool>,
    symbols: LinearTagger,
    roles: LinearTagger,
}

/// A parse: each word's symbol, and the MRs.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Parse {
    /// Symbol id per word.
    pub alignment: Vec<u32>,
    /// The MRs, relation pair first, then arguments in sentence order; no role twice in one MR.
    pub mrs: Vec<Vec<MrPair>>,
}

impl SemanticParser {
    /// From the two taggers' weights (`symbol_w`: symbol_features x symbols, `role_w`:
    /// role_features x roles) and the relation flags of the symbols.
    pub fn from_parts(shape: ParserShape, is_rel: Vec<bool>, symbol_w: Vec<f64>, role_w: Vec<f64>) -> Result<Self> {
        shape.check()?;
        if is_rel.len() != shape.symbols || is_rel[0] {
            return Err(Error::InvalidData("one relation flag per symbol, none for the empty symbol".into()));
        }
        let (symbols, roles) =
            (LinearTagger::from_parts(symbol_w, shape.symbols)?, LinearTagger::from_parts(role_w, shape.roles)?);
        if symbols.features() != shape.symbol_features() || roles.features() != shape.role_features() {
            return Err(Error::InvalidData(format!(
                "weights of {} and {} features, expected {} and {}",
                symbols.features(),
                roles.features(),
                shape.symbol_features(),
                shape.role_features()
            )));
        }
        Ok(SemanticParser { shape, is_rel, symbols, roles })
    }

    /// A parser with zero weights.
    pub fn new(shape: ParserShape, is_rel: Vec<bool>) -> Result<Self> {
        shape.check()?;
        let (a, b) = (shape.symbol_features(), shape.role_features());
        let size = |f: usize, l: usize| {
            f.checked_mul(l).ok_or_else(|| Error::InvalidParameter("the vocabulary is too large".into()))
        };
        let (sa, sb) = (size(a, shape.symbols)?, size(b, shape.roles)?);
        Self::from_parts(shape, is_rel, vec![0.0; sa], vec![0.0; sb])
    }

    /// The shape.
    pub fn shape(&self) -> ParserShape {
        self.shape
    }

    /// The taggers' weights: (symbols, roles).
    pub fn into_weights(self) -> (Vec<f64>, Vec<f64>) {
        (self.symbols.into_weights(), self.roles.into_weights())
    }

    /// One online pass per epoch over the sentences, in order, with their supervision. `rng` (the
    /// random strategy, ties) goes on where the previous call left it when the caller keeps it, so
    /// that training on a stream in several calls is training on it in one.
    pub fn train(
        &mut self, sentences: &Sentences<'_>, supervision: &Supervision<'_>, params: &ParserParams, rng: &mut Rng,
        control: &Control,
    ) -> Result<ParserStats> {
        if !(params.c > 0.0 && params.c.is_finite()) {
            return Err(Error::InvalidParameter(format!("C must be positive, got {}", params.c)));
        }
        sentences.check(&self.shape, true)?;
        supervision.check(sentences, &self.shape)?;
        let mut stats = ParserStats::default();
        let mut bag = vec![0u32; self.shape.symbols];
        control.plan((params.epochs * sentences.len()) as u64);
        for epoch in 0..params.epochs {
            for s in 0..sentences.len() {
                control.poll()?;
                // after the first pass every label of the stream has been met
                let known = if epoch == 0 {
                    let (a, b) = supervision.known[s];
                    (a as usize, b as usize)
                } else {
                    (self.shape.symbols, self.shape.roles)
                };
                self.train_sentence(sentences.get(s), supervision, s, known, &mut bag, params, rng, &mut stats);
                stats.sentences += 1;
                control.problem_done();
            }
        }
        Ok(stats)
    }

    #[allow(clippy::too_many_arguments)]
    fn train_sentence(
        &mut self, words: &[u32], sup: &Supervision<'_>, s: usize, known: (usize, usize), bag: &mut [u32],
        params: &ParserParams, rng: &mut Rng, stats: &mut ParserStats,
    ) {
        let (m, shape) = (words.len(), self.shape);
        // symbols: every label draws on its own bag entry
        let x: Vec<Vec<u32>> = (0..m).map(|i| shape.symbol_x(words, i)).collect();
        bag.fill(0);
        for &(symbol, copies) in &sup.bag[sup.bag_ptr[s]..sup.bag_ptr[s + 1]] {
            bag[symbol as usize] += copies;
        }
        let (known_symbols, known_roles) = known;
        let problem = BagProblem { x: &x, items: None, bag, known: known_symbols };
        let labels = label_from_bag(&mut self.symbols, problem, params.strategy, params.c, rng, &mut stats.symbol);
        let symbols: Vec<u32> = labels.iter().map(|l| l.map_or(0, |y| y as u32)).collect();
        // roles, once per relation word, from the pairs of that relation's candidate MRs
        let roles = shape.roles;
        for p in 0..m {
            let r = symbols[p];
            if !self.is_rel[r as usize] || (known.0 < shape.symbols && sup.rel_since[r as usize] as usize > s) {
                continue; // not (yet, in the stream) a relation
            }
            let (mut pairs, mut headed) = (Vec::new(), false);
            for mr in sup.mrs(s).filter(|mr| mr.iter().any(|q| q.role == REL && q.symbol == r)) {
                headed = true;
                pairs.extend(mr.iter().copied().filter(|q| q.role != REL));
            }
            if !headed {
                continue; // no candidate MR of this relation: nothing to learn from
            }
            pairs.sort_unstable();
            pairs.dedup();
            let tokens: Vec<usize> = (0..m).filter(|&i| i != p && symbols[i] != 0).collect();
            if tokens.is_empty() {
                continue;
            }
            // entries: the pairs, then one shared entry for the empty role
            let empty = pairs.len() as u32;
            let mut counts = vec![1u32; pairs.len() + 1];
            counts[pairs.len()] = 0;
            let mut items = vec![NOT_IN_BAG; tokens.len() * roles];
            for (t, &i) in tokens.iter().enumerate() {
                let mut any = false;
                for (e, q) in pairs.iter().enumerate().filter(|(_, q)| q.symbol == symbols[i]) {
                    items[t * roles + q.role as usize] = e as u32;
                    any = true;
                }
                if !any {
                    items[t * roles] = empty;
                    counts[pairs.len()] += 1;
                }
            }
            let x: Vec<Vec<u32>> = tokens
                .iter()
                .map(|&i| {
                    shape.role_x(
                        words,
                        &symbols,
                        i,
                        p,
                        self.rels_between(&symbols, i, p),
                        self.is_rel[symbols[i] as usize],
                    )
                })
                .collect();
            let problem = BagProblem { x: &x, items: Some(&items), bag: &mut counts, known: known_roles };
            label_from_bag(&mut self.roles, problem, params.strategy, params.c, rng, &mut stats.role);
            stats.role_passes += 1;
        }
    }

    /// Parses every sentence (in parallel over sentences). Unknown words get no features, so
    /// their scores are all zero and they take the empty symbol, as the thesis' one-hot words do.
    pub fn parse(&self, sentences: &Sentences<'_>, control: &Control) -> Result<Vec<Parse>> {
        sentences.check(&self.shape, false)?;
        control.poll()?;
        let out = (0..sentences.len()).into_par_iter().map(|s| self.parse_one(sentences.get(s))).collect();
        control.poll()?;
        Ok(out)
    }

    /// How many words strictly between positions i and p carry a relation symbol.
    fn rels_between(&self, symbols: &[u32], i: usize, p: usize) -> usize {
        let (a, b) = if i < p { (i + 1, p) } else { (p + 1, i) };
        symbols[a..b].iter().filter(|&&y| self.is_rel[y as usize]).count()
    }

    fn parse_one(&self, words: &[u32]) -> Parse {
        let shape = self.shape;
        let mut scores = vec![0.0; shape.symbols.max(shape.roles)];
        let alignment: Vec<u32> = (0..words.len())
            .map(|i| {
                self.symbols.scores(&shape.symbol_x(words, i), &mut scores);
                best_label(&scores[..shape.symbols]) as u32
            })
            .collect();
        let mut mrs = Vec::new();
        for (p, &r) in alignment.iter().enumerate() {
            if !self.is_rel[r as usize] {
                continue;
            }
            // each role goes to the word that takes it with the highest score, so that no MR
            // gives one role to two symbols
            let mut best: Vec<Option<(f64, usize)>> = vec![None; shape.roles];
            for (i, &symbol) in alignment.iter().enumerate() {
                if i == p || symbol == 0 {
                    continue;
                }
                let between = self.rels_between(&alignment, i, p);
                self.roles
                    .scores(&shape.role_x(words, &alignment, i, p, between, self.is_rel[symbol as usize]), &mut scores);
                let role = best_label(&scores[..shape.roles]);
                if role != 0 && best[role].is_none_or(|(s, _)| scores[role] > s) {
                    best[role] = Some((scores[role], i));
                }
            }
            let mut taken: Vec<(usize, u32)> =
                best.iter().enumerate().filter_map(|(role, b)| b.map(|(_, i)| (i, role as u32))).collect();
            taken.sort_unstable();
            let mut mr = vec![MrPair { symbol: r, role: REL }];
            mr.extend(taken.into_iter().map(|(i, role)| MrPair { symbol: alignment[i], role }));
            mrs.push(mr);
        }
        Parse { alignment, mrs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tiny world: "NAME VERB NAME" sentences, "the" around; symbol of name k is k, verb is a
    /// relation; roles A0 (before the verb) and A1 (after).
    /// (sentence offsets, words, MR offsets, pair offsets, pairs, bag offsets, bag entries).
    type World = (Vec<usize>, Vec<u32>, Vec<usize>, Vec<usize>, Vec<MrPair>, Vec<usize>, Vec<(u32, u32)>);

    fn world(n: usize, distractors: bool, seed: u64) -> World {
        // words: 1 "the", 2..=5 names, 6 "chases"; symbols: 1..=4 names, 5 chase; roles: 1 A0, 2 A1
        let mut rng = Rng::new(seed);
        let (mut ptr, mut words, mut mr_ptr, mut pair_ptr, mut pairs, mut bag_ptr, mut bag) =
            (vec![0], vec![], vec![0], vec![0], vec![], vec![0], vec![]);
        for _ in 0..n {
            let a = rng.below(4) as u32;
            let b = (a + 1 + rng.below(3) as u32) % 4;
            words.extend_from_slice(&[1, 2 + a, 6, 1, 2 + b]);
            ptr.push(words.len());
            let mut mrs = vec![[(5, REL), (1 + a, 1), (1 + b, 2)]];
            if distractors && rng.below(2) == 0 {
                mrs.push([(5, REL), (1 + b, 1), (1 + a, 2)]); // the reversed event
            }
            for mr in &mrs {
                pairs.extend(mr.iter().map(|&(symbol, role)| MrPair { symbol, role }));
                pair_ptr.push(pairs.len());
            }
            mr_ptr.push(pair_ptr.len() - 1);
            bag.extend_from_slice(&[(0, 2), (5, 1), (1 + a, 1), (1 + b, 1)]);
            bag_ptr.push(bag.len());
        }
        (ptr, words, mr_ptr, pair_ptr, pairs, bag_ptr, bag)
    }

    const SINCE: [u32; 6] = [u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, 0];

    fn shape() -> ParserShape {
        ParserShape { words: 7, symbols: 6, roles: 3, symbol_window: 1, role_window: 3 }
    }

    #[test]
    fn learns_symbols_and_roles_and_parses() {
        for distractors in [false, true] {
            let (ptr, words, mr_ptr, pair_ptr, pairs, bag_ptr, bag) = world(300, distractors, 4);
            let sentences = Sentences { ptr: &ptr, words: &words };
            let known = vec![(6, 3); 300];
            let since = SINCE;
            let sup = Supervision {
                mr_ptr: &mr_ptr,
                pair_ptr: &pair_ptr,
                pairs: &pairs,
                bag_ptr: &bag_ptr,
                bag: &bag,
                known: &known,
                rel_since: &since,
            };
            let mut is_rel = vec![false; 6];
            is_rel[5] = true;
            let mut parser = SemanticParser::new(shape(), is_rel).unwrap();
            let params = ParserParams { c: 1.0, strategy: Strategy::Random, epochs: 1 };
            let stats = parser.train(&sentences, &sup, &params, &mut Rng::new(1), &Control::new()).unwrap();
            assert_eq!(stats.sentences, 300);
            let test = [1u32, 3, 6, 1, 5];
            let parsed = parser.parse(&Sentences { ptr: &[0, 5], words: &test }, &Control::new()).unwrap();
            assert_eq!(parsed[0].alignment, vec![0, 2, 5, 0, 4], "distractors: {distractors}");
            let want =
                vec![MrPair { symbol: 5, role: REL }, MrPair { symbol: 2, role: 1 }, MrPair { symbol: 4, role: 2 }];
            assert_eq!(parsed[0].mrs, vec![want], "distractors: {distractors}");
        }
    }

    /// "girl hoped baby brings cookie": for "brings", "girl" has a relation ("hoped") between
    /// them and "baby" none; the role features tell the two apart beyond their distance, and a
    /// clause argument ("brings" for "hoped") from a thing.
    #[test]
    fn role_features_see_relations_in_between() {
        let shape = ParserShape { words: 6, symbols: 6, roles: 3, symbol_window: 1, role_window: 1 };
        let mut is_rel = vec![false; 6];
        (is_rel[2], is_rel[4]) = (true, true);
        let parser = SemanticParser::new(shape, is_rel).unwrap();
        let (words, symbols) = ([1u32, 2, 3, 4, 5], [1u32, 2, 3, 4, 5]);
        assert_eq!(parser.rels_between(&symbols, 0, 3), 1);
        assert_eq!(parser.rels_between(&symbols, 2, 3), 0);
        assert_eq!(parser.rels_between(&symbols, 4, 1), 1);
        let far = shape.role_x(&words, &symbols, 0, 3, 1, false);
        let near = shape.role_x(&words, &symbols, 0, 3, 0, false);
        assert_ne!(far, near, "the relation in between is a feature");
        let clause = shape.role_x(&words, &symbols, 3, 1, 0, true);
        let thing = shape.role_x(&words, &symbols, 3, 1, 0, false);
        assert_ne!(clause, thing, "a clause argument is told from a thing");
        let rows = shape.role_features() as u32;
        assert!(far.iter().chain(&clause).all(|&f| f < rows), "features within the weights");
        // the words between are features, on the side the word lies on
        let words_between = shape.role_x(&words, &symbols, 0, 4, 2, false);
        assert!(words_between.len() > far.len());
    }

    #[test]
    fn unknown_words_take_no_symbol_and_bad_input_is_refused() {
        let mut is_rel = vec![false; 6];
        is_rel[5] = true;
        let parser = SemanticParser::new(shape(), is_rel).unwrap();
        let parsed = parser.parse(&Sentences { ptr: &[0, 2], words: &[UNKNOWN_WORD, 1] }, &Control::new()).unwrap();
        assert_eq!(parsed[0].alignment, vec![0, 0]);
        assert!(parser.parse(&Sentences { ptr: &[0, 1], words: &[9] }, &Control::new()).is_err());
        // an MR with two RELs, an empty bag, an empty sentence
        let mut p2 = parser.clone();
        let params = ParserParams { c: 1.0, strategy: Strategy::Random, epochs: 1 };
        let two = [MrPair { symbol: 5, role: REL }, MrPair { symbol: 1, role: REL }];
        let sup = Supervision {
            mr_ptr: &[0, 1],
            pair_ptr: &[0, 2],
            pairs: &two,
            bag_ptr: &[0, 1],
            bag: &[(0, 1)],
            known: &[(6, 3)],
            rel_since: &SINCE,
        };
        let err = p2
            .train(&Sentences { ptr: &[0, 1], words: &[1] }, &sup, &params, &mut Rng::new(1), &Control::new())
            .unwrap_err();
        assert!(err.to_string().contains("2 REL pairs"), "{err}");
        let sup = Supervision {
            mr_ptr: &[0, 0],
            pair_ptr: &[0],
            pairs: &[],
            bag_ptr: &[0, 0],
            bag: &[],
            known: &[(6, 3)],
            rel_since: &[u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, 0],
        };
        let err = p2
            .train(&Sentences { ptr: &[0, 1], words: &[1] }, &sup, &params, &mut Rng::new(1), &Control::new())
            .unwrap_err();
        assert!(err.to_string().contains("bag of sentence 0 is empty"), "{err}");
        let sup = Supervision {
            mr_ptr: &[0, 0],
            pair_ptr: &[0],
            pairs: &[],
            bag_ptr: &[0, 1],
            bag: &[(0, 1)],
            known: &[(6, 3)],
            rel_since: &SINCE,
        };
        let err = p2
            .train(&Sentences { ptr: &[0, 0], words: &[] }, &sup, &params, &mut Rng::new(1), &Control::new())
            .unwrap_err();
        assert!(err.to_string().contains("no tokens"), "{err}");
    }
}
