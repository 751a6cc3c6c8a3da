//! `stemmata dictionary add|list|remove`: the bilingual dictionaries of an
//! index.

use clap::{Args, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;
use stemmata::translate::dictionary::Dictionary;
use stemmata::{DictionaryInfo, Index, Result};

use crate::messages::{count, no_index};
use crate::output::print_json;

/// Long help of `stemmata dictionary`.
pub const ABOUT: &str = "\
Manage the bilingual dictionaries of an index.

A dictionary is imported from the dictd files FreeDict publishes (Debian's
dict-freedict-LANG-LANG packages install them under /usr/share/dictd/): give
its .index or its .dict.dz (or .dict); the other file is found beside it. Its
name is the files' stem (freedict-eng-deu), its languages come from that name
(freedict-XXX-YYY, ISO 639-3 codes) or from its 00databaseshort entry.
Headwords and translations are normalised as book words are; phrases (more
than one word) are left out. An eng-deu and a deu-eng dictionary both serve
English-German translation, in either direction.

The dictionary is copied into the index (dictionaries/NNNNNN.dic, with a
checksum): the original files are not needed afterwards.";

#[derive(Args)]
pub struct DictionaryArgs {
    #[command(subcommand)]
    pub command: DictionaryCommand,
}

#[derive(Subcommand)]
pub enum DictionaryCommand {
    /// Import dictd dictionaries (FILE is a .index, .dict.dz or .dict). A
    /// dictionary of the same name already in the index is replaced. A
    /// file that cannot be read stops the command there; dictionaries
    /// imported before it stay, the index is otherwise unchanged.
    Add(AddArgs),
    /// List the index's dictionaries: name, languages, headwords,
    /// translation pairs and bytes.
    List(ListArgs),
    /// Remove a dictionary by name (as `list` shows it).
    Remove(RemoveArgs),
}

#[derive(Args)]
pub struct AddArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Dictionary files: each a .index, .dict.dz or .dict of a dictd
    /// dictionary.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Print as JSON (one object per dictionary in an array).
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct ListArgs {
    /// The index directory.
    pub index: PathBuf,
    /// Print as JSON.
    #[arg(long)]
    pub json: bool,
}

#[derive(Args)]
pub struct RemoveArgs {
    /// The index directory.
    pub index: PathBuf,
    /// The dictionary's name (freedict-eng-deu).
    pub name: String,
}

pub fn run(args: DictionaryArgs) -> Result<ExitCode> {
    match args.command {
        DictionaryCommand::Add(args) => add(args),
        DictionaryCommand::List(args) => list(args),
        DictionaryCommand::Remove(args) => remove(args),
    }
}

/// One line about a dictionary.
pub fn describe(d: &DictionaryInfo) -> String {
    format!(
        "{}  {}->{}  {}, {} ({})",
        d.name,
        d.from,
        d.to,
        count(d.headwords, "headword"),
        count(d.pairs, "translation pair"),
        count(d.bytes, "byte")
    )
}

fn add(args: AddArgs) -> Result<ExitCode> {
    // Every file read and the index checked before it is opened for
    // writing: a refused dictionary leaves the catalog's bytes as they were.
    Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let dictionaries = args
        .files
        .iter()
        .map(|file| Dictionary::read(file))
        .collect::<Result<Vec<_>>>()?;
    let index = Index::open(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let mut added = Vec::new();
    for dictionary in &dictionaries {
        let info = index.add_read_dictionary(dictionary)?;
        for warning in &info.warnings {
            eprintln!("warning: {warning}");
        }
        if !args.json {
            outln!("added {}", describe(&info))?;
        }
        added.push(info);
    }
    if args.json {
        print_json(&added)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn list(args: ListArgs) -> Result<ExitCode> {
    let index = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let dictionaries = index.dictionaries()?;
    if args.json {
        print_json(&dictionaries)?;
    } else if dictionaries.is_empty() {
        outln!("no dictionaries")?;
    } else {
        for d in &dictionaries {
            outln!("{}", describe(d))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn remove(args: RemoveArgs) -> Result<ExitCode> {
    // A name the index does not have is refused before the index is opened
    // for writing: the catalog's bytes stay as they were.
    let reader = Index::open_read_only(&args.index).map_err(|e| no_index(e, &args.index, false))?;
    let names: Vec<String> = reader.dictionaries()?.into_iter().map(|d| d.name).collect();
    drop(reader);
    let removed = if names.contains(&args.name) {
        let index = Index::open(&args.index).map_err(|e| no_index(e, &args.index, false))?;
        index.remove_dictionary(&args.name)?
    } else {
        None
    };
    if let Some(warnings) = removed {
        for warning in warnings {
            eprintln!("warning: {warning}");
        }
        outln!("removed {}", args.name)?;
        Ok(ExitCode::SUCCESS)
    } else {
        Err(stemmata::Error::InvalidArgument(format!(
            "{}: no dictionary named {:?} (the index has {})",
            args.index.display(),
            args.name,
            if names.is_empty() {
                "none".to_string()
            } else {
                names.join(", ")
            }
        )))
    }
}
