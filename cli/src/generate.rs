//! `stemmata generate`: write a labelled test collection in the corpus
//! layout (`books.tsv`, `pairs.tsv` with a `band` column, `texts/ID.txt`;
//! the translated set adds `alignments/ID.tsv`), for `stemmata eval
//! --corpus DIR`.

use clap::{Args, Subcommand};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use stemmata::translate::dictionary::Dictionary;
use stemmata::{Error, Result};
use stemmata_synth::human_translations::{human_translations_set, HumanTranslationsOptions};
use stemmata_synth::sets::{
    noisy_copies_set, read_partnerless, volumes_set, LabelledSet, NoisyCopiesOptions, SourceBook,
    VolumesOptions,
};
use stemmata_synth::translated::{iso639_1, translated_set, TranslatedOptions, TranslatedSet};
use stemmata_synth::translated_volumes::{translated_volumes_set, TranslatedVolumesOptions};

use crate::output::print_json;

pub const ABOUT: &str =
    "Write a labelled test collection for `stemmata eval --corpus DIR`, in the \
layout of the labelled corpus: books.tsv, pairs.tsv (a, b, relation, note, band) and texts/ID.txt. \
Any pair not listed is unrelated.

`volumes`: large volumes (0.5–2M words) that each bind 30–80 works end to end, a title line \
between; every work is also a book of its own (OCR noise 0–5%; the volume 0–3%), labelled \
`contains` from its volume with its share of the volume as the band: share <0.1%, 0.1-0.5%, \
0.5-1%, 1-5%, >=5%. Many works are short (500–10,000 words) so that every band is populated. \
Unrelated standalone books (in no volume) are added. The default 6 volumes hold about 6.5M \
words, 14M with the works' own copies.

`noisy-copies`: two OCR-noisy copies of each source book (a corpus book's first 20,000 \
words, or a generated book of 5,000–20,000 words), at character error rates of 1–20% \
each, labelled `edition` with band `noise A%+B%` (larger first): every combination up to 20%+10%, \
and 15%+15%, 20%+15%, 20%+20%. The OCR model is the demo's: substitutions, splits, joins, lost \
and doubled characters, broken lines.

`translated`: word-by-word machine translations of corpus books with a FreeDict dictd \
dictionary (--dictionary, e.g. /usr/share/dictd/freedict-eng-deu.index), labelled \
`translation` with a = the source, b = its translation, and the OCR noise band of b: \
`noise 0-2%`, `noise 2-5%`, `noise 5-8%` (as many of each; the rate uniform in its band). Sources (s001…) are --books corpus books in the \
dictionary's source language with no partner, each its first 30,000 words at most. Each word \
is looked up lower-cased, letters only, and one of its one-word translations (the dictionary reader keeps no phrases; \
pronunciations in phonetic letters are left out) picked at random; a word \
without translation is kept as it is (names, cognates) with probability 0.7, else dropped; then \
5% of the words are dropped, a function word of the target language is inserted before 5%, \
adjacent words are swapped with probability 0.15, and OCR noise is added; punctuation and line \
breaks stay. About 70% are whole translations (t…); 15% translate the first 20–40% of the \
source only (t…, note `PARTIAL: b translates the first …`); 15% are bound in a volume (v…) \
with 3–6 translations of other corpus excerpts of 2,000–10,000 words (generated text once \
the corpus runs out), a title line before each (note `PARTIAL: b \
contains the translation of a …`). Negatives: translations of a third as many further corpus \
books not in the set (x…), and as many untranslated corpus books of the source language \
(u…). alignments/ID.tsv, for each translated book b (t… and v…), has columns source_word and \
target_word: the word offset in b where the translation of every 50th word of a starts (words \
are whitespace-separated, as books.tsv counts them; rows ascending). Languages in books.tsv \
are ISO 639-1 (en, de, …). Needs --corpus. The default 30 sources with eng-deu write 80 books, \
2.2M words.

`translated-volumes`: translated works inside large volumes of the other language (one book \
of a Bible inside a whole Bible in another language), labelled `translation` with the work's share \
of its volume as the band (share <0.1%, 0.1-0.5%, 0.5-1%, 1-5%, >=5%). Each volume (vol…, \
0.4–1.2M words) binds excerpts of the corpus's partnerless books in the dictionary's source \
language, of 0.05–15% of the volume each (at least 300 words), a title line before each; every \
excerpt is also a book of its own in the other language (v…p…). Volumes alternate: the first is \
bound in the source language and its pieces are word-by-word translations (as `translated` makes \
them, with --dictionary), the second is translated whole and its pieces are the original \
excerpts. OCR noise 0–4% on a volume, 0–8% on a piece. Negatives: 3 excerpts per volume in no \
volume translated (x…) and 3 kept in the source language (u…). Needs --corpus; the default 4 \
volumes take about 3.2M words of it.

`human-translations`: pieces of the corpus's human translations inside volumes of the other \
language, labelled `translation` with the piece's share of its volume as the band. From each \
family of related corpus books (joined by edition, contains or translation pairs), one translation \
pair with English on one side, neither PARTIAL nor HARD. Per language, the pairs are dealt in turn: \
the English book bound whole in an English volume (vol…, filled to 0.5–1M words with the corpus's \
partnerless English books) and up to 5 pieces of the other book (v…b…p…, one from each fifth of it, \
0.05–15% of the volume, at least 300 words) as books; or the other book bound in a volume of its \
language (with that language's partnerless books) and pieces of the English book as books. OCR \
noise 0–4% on a volume, 0–8% on a piece. Negatives: two pieces of each partnerless book no volume \
binds (x…). Needs --corpus.

With --corpus DIR, works come from that corpus's books that have no edition, contains or \
translation partner in its pairs.tsv (each used once: whole, or cut into excerpts that are \
distinct works), then from generated texts when those run out; without it, every work is \
generated. The same options always write the same collection.";

#[derive(Args)]
pub struct GenerateArgs {
    #[command(subcommand)]
    pub set: SetCommand,
}

#[derive(Subcommand)]
pub enum SetCommand {
    /// Volumes that bind many works, each work labelled with its share band.
    Volumes(VolumesArgs),
    /// Two OCR-noisy copies of each source book, labelled with their noise band.
    NoisyCopies(NoisyArgs),
    /// Word-by-word dictionary translations of corpus books, labelled with their noise band.
    Translated(TranslatedArgs),
    /// Translated works inside volumes of the other language, labelled with their share band.
    TranslatedVolumes(TranslatedVolumesArgs),
    /// Pieces of the corpus's human translations inside volumes of the other language.
    HumanTranslations(CommonArgs),
}

#[derive(Args)]
pub struct CommonArgs {
    /// Directory to write (created; must be missing or empty).
    #[arg(long)]
    pub out: PathBuf,
    /// Labelled corpus whose partnerless books supply the works
    /// [default: generated works only].
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Seed of every random choice.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct VolumesArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Number of volumes (about 1.1M words each on average).
    #[arg(long, default_value_t = 6)]
    pub volumes: usize,
}

#[derive(Args)]
pub struct NoisyArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// Number of source books (two copies each).
    #[arg(long, default_value_t = 96)]
    pub books: usize,
}

#[derive(Args)]
pub struct TranslatedArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The FreeDict dictd dictionary to translate with (its .index,
    /// .dict.dz or .dict): its languages are the sources' and the
    /// translations'.
    #[arg(long)]
    pub dictionary: PathBuf,
    /// Number of source books translated.
    #[arg(long, default_value_t = 30)]
    pub books: usize,
}

#[derive(Args)]
pub struct TranslatedVolumesArgs {
    #[command(flatten)]
    pub common: CommonArgs,
    /// The FreeDict dictd dictionary to translate with (its .index,
    /// .dict.dz or .dict): its languages are the volumes' and the
    /// pieces'.
    #[arg(long)]
    pub dictionary: PathBuf,
    /// Number of volumes (about 800,000 words each on average).
    #[arg(long, default_value_t = 4)]
    pub volumes: usize,
}

#[derive(serde::Serialize)]
struct Summary {
    set: &'static str,
    out: String,
    seed: u64,
    books: usize,
    words: usize,
    pairs: usize,
    seconds: f64,
    /// Pairs per relation, then per band.
    bands: BTreeMap<String, BTreeMap<String, usize>>,
}

/// Refuses a directory that exists and is not empty.
pub(crate) fn check_empty(dir: &Path) -> Result<()> {
    match std::fs::read_dir(dir) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(Error::InvalidArgument(format!(
                    "{}: directory is not empty; choose a new or empty directory",
                    dir.display()
                )));
            }
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Err(source) => Err(Error::Io {
            path: dir.to_path_buf(),
            source,
        }),
    }
}

fn sources(corpus: Option<&Path>) -> Result<Vec<SourceBook>> {
    match corpus {
        None => Ok(Vec::new()),
        Some(dir) => read_partnerless(dir).map_err(Error::InvalidArgument),
    }
}

pub fn run(args: GenerateArgs) -> Result<ExitCode> {
    let (name, common) = match &args.set {
        SetCommand::Volumes(a) => ("volumes", &a.common),
        SetCommand::NoisyCopies(a) => ("noisy-copies", &a.common),
        SetCommand::Translated(a) => ("translated", &a.common),
        SetCommand::TranslatedVolumes(a) => ("translated-volumes", &a.common),
        SetCommand::HumanTranslations(a) => ("human-translations", a),
    };
    check_empty(&common.out)?;
    let started = Instant::now();
    let quiet = common.quiet;
    let mut progress = |line: &str| {
        if !quiet {
            eprintln!("{line}");
        }
    };
    let books = sources(common.corpus.as_deref())?;
    if let Some(dir) = &common.corpus {
        progress(&format!(
            "{}: {} books with no edition, contains or translation partner",
            dir.display(),
            books.len()
        ));
    }
    let written: TranslatedSet = match &args.set {
        SetCommand::Volumes(a) => TranslatedSet {
            set: volumes_set(
                &VolumesOptions::new(a.volumes, common.seed),
                books,
                &mut progress,
            ),
            alignments: Vec::new(),
        },
        SetCommand::NoisyCopies(a) => TranslatedSet {
            set: noisy_copies_set(
                &NoisyCopiesOptions::new(a.books, common.seed),
                books,
                &mut progress,
            ),
            alignments: Vec::new(),
        },
        SetCommand::Translated(a) => translated(a, books, &mut progress)?,
        SetCommand::TranslatedVolumes(a) => TranslatedSet {
            set: translated_volumes(a, books, &mut progress)?,
            alignments: Vec::new(),
        },
        SetCommand::HumanTranslations(a) => {
            let corpus = needed_corpus(a, "human-translations")?;
            let options = HumanTranslationsOptions { seed: a.seed };
            TranslatedSet {
                set: human_translations_set(corpus, &options, &mut progress).map_err(
                    |problem| Error::InvalidArgument(format!("{}: {problem}", corpus.display())),
                )?,
                alignments: Vec::new(),
            }
        }
    };
    progress(&format!("writing {}", common.out.display()));
    written.write(&common.out).map_err(|source| Error::Io {
        path: common.out.clone(),
        source,
    })?;
    let set: &LabelledSet = &written.set;
    let mut bands: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for ((relation, band), count) in set.band_counts() {
        bands.entry(relation).or_default().insert(band, count);
    }
    let summary = Summary {
        set: name,
        out: common.out.display().to_string(),
        seed: common.seed,
        books: set.books.len(),
        words: set.words(),
        pairs: set.pairs.len(),
        seconds: started.elapsed().as_secs_f64(),
        bands,
    };
    if common.json {
        print_json(&summary)?;
    } else {
        outln!(
            "{} set in {}: {} books, {:.2}M words, {} related pairs (seed {}, {:.1} s)",
            summary.set,
            summary.out,
            summary.books,
            summary.words as f64 / 1e6,
            summary.pairs,
            summary.seed,
            summary.seconds
        )?;
        for (relation, bands) in &summary.bands {
            for (band, count) in bands {
                outln!("  {relation:<9} {band:<16} {count:>5}")?;
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// A dictionary's word map for the translator: normalised headword → its
/// translations (pronunciations in phonetic letters left out), with the
/// two languages' ISO 639-1 codes and the dictionary's name.
struct WordMap {
    map: HashMap<String, Vec<String>>,
    from: &'static str,
    to: &'static str,
    name: String,
}

impl WordMap {
    fn read(path: &Path, progress: &mut dyn FnMut(&str)) -> Result<WordMap> {
        let dictionary = Dictionary::read(path)?;
        let language = |code: &str| {
            iso639_1(code).ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "{}: no two-letter code known for the dictionary's language {code}",
                    path.display()
                ))
            })
        };
        let (from, to) = (language(dictionary.from())?, language(dictionary.to())?);
        // The dictionary's words are normalised as a book's words are.
        let words = dictionary.words();
        let mut map: HashMap<String, Vec<String>> = HashMap::new();
        let mut pronunciations = 0usize;
        for &(a, b) in dictionary.pairs() {
            let translation = &words[b as usize];
            if is_pronunciation(translation) {
                pronunciations += 1;
                continue;
            }
            map.entry(words[a as usize].clone())
                .or_default()
                .push(translation.clone());
        }
        progress(&format!(
            "{}: {} headwords with a translation, {from} to {to} ({pronunciations} \
             translations in phonetic letters left out)",
            path.display(),
            map.len()
        ));
        Ok(WordMap {
            map,
            from,
            to,
            name: dictionary.name().to_string(),
        })
    }
}

/// The corpus of a set that needs one, for its error messages.
fn needed_corpus<'a>(common: &'a CommonArgs, set: &str) -> Result<&'a Path> {
    common.corpus.as_deref().ok_or_else(|| {
        Error::InvalidArgument(format!(
            "generate {set} needs --corpus DIR: its books are the sources"
        ))
    })
}

/// The translated set of `args` from `books` (the corpus's partnerless books).
fn translated(
    args: &TranslatedArgs,
    books: Vec<SourceBook>,
    progress: &mut dyn FnMut(&str),
) -> Result<TranslatedSet> {
    let corpus = needed_corpus(&args.common, "translated")?;
    let words = WordMap::read(&args.dictionary, progress)?;
    let options = TranslatedOptions::new(
        args.books,
        args.common.seed,
        words.from,
        words.to,
        &words.name,
    );
    translated_set(&options, books, &words.map, progress)
        .map_err(|problem| Error::InvalidArgument(format!("{}: {problem}", corpus.display())))
}

/// The translated-volumes set of `args` from `books` (the corpus's
/// partnerless books).
fn translated_volumes(
    args: &TranslatedVolumesArgs,
    books: Vec<SourceBook>,
    progress: &mut dyn FnMut(&str),
) -> Result<LabelledSet> {
    let corpus = needed_corpus(&args.common, "translated-volumes")?;
    let words = WordMap::read(&args.dictionary, progress)?;
    let options = TranslatedVolumesOptions::new(
        args.volumes,
        args.common.seed,
        words.from,
        words.to,
        &words.name,
    );
    translated_volumes_set(&options, books, &words.map, progress)
        .map_err(|problem| Error::InvalidArgument(format!("{}: {problem}", corpus.display())))
}

/// Whether `word` is written in phonetic letters (IPA extensions, spacing
/// modifier letters such as `ˈ` and `ː`): a pronunciation that some
/// FreeDict entries (eng-deu's `newspaper`: `Zeitung <fem>Ztg., /zˌɛdtˌiːdʒˈiː/
/// , Blatt`) hold in a translation line, which the dictionary reader keeps
/// as a word.
fn is_pronunciation(word: &str) -> bool {
    word.chars().any(|c| ('\u{250}'..='\u{2FF}').contains(&c))
}
