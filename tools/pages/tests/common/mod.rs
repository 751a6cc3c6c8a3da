//! Shared by the tests: the font and a few hundred words of a real book.

#![allow(dead_code)]

use stemmata_pages::{load_font, FontVec, Layout};

/// DejaVu Serif, from Debian's fonts-dejavu-core.
pub const DEJAVU_SERIF: &str = "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf";

pub fn dejavu() -> FontVec {
    load_font(DEJAVU_SERIF.as_ref()).unwrap_or_else(|e| {
        panic!(
            "{e}: these tests need Debian's fonts-dejavu-core (apt-get install fonts-dejavu-core)"
        )
    })
}

/// The opening of Pride and Prejudice (three paragraphs, curly quotes),
/// three times over: about 500 words.
pub fn sample_text() -> String {
    let opening = "It is a truth universally acknowledged, that a single man in possession
of a good fortune, must be in want of a wife.

However little known the feelings or views of such a man may be on his
first entering a neighbourhood, this truth is so well fixed in the minds
of the surrounding families, that he is considered the rightful property
of some one or other of their daughters.

\u{201C}My dear Mr. Bennet,\u{201D} said his lady to him one day, \u{201C}have you heard that
Netherfield Park is let at last?\u{201D}

Mr. Bennet replied that he had not.

\u{201C}But it is,\u{201D} returned she; \u{201C}for Mrs. Long has just been here, and she
told me all about it.\u{201D}

Mr. Bennet made no answer.

\u{201C}Do you not want to know who has taken it?\u{201D} cried his wife impatiently.

\u{201C}_You_ want to tell me, and I have no objection to hearing it.\u{201D}

This was invitation enough.

\u{201C}Why, my dear, you must know, Mrs. Long says that Netherfield is taken
by a young man of large fortune from the north of England; that he came
down on Monday in a chaise and four to see the place, and was so much
delighted with it, that he agreed with Mr. Morris immediately; that he is
to take possession before Michaelmas, and some of his servants are to be
in the house by the end of next week.\u{201D}
";
    [opening; 3].join("\n")
}

/// A small page, so that the sample fills a few of them quickly.
pub fn small_layout() -> Layout {
    Layout {
        width: 600,
        height: 500,
        margin: 40,
        ..Layout::default()
    }
}
