// The Porter stemmer (app/text/porter_stemmer.h) in NLTK_EXTENSIONS mode; the expected
// stems were checked against NLTK's PorterStemmer() (tools/eval/rouge_reference.py).
#include <gtest/gtest.h>

#include "app/text/porter_stemmer.h"

using precis::text::porter_stem;

TEST(PorterStemmer, FollowsPortersOriginalSteps) {
    // Step 1a: SSES -> SS, IES -> I, S -> ''.
    EXPECT_EQ(porter_stem("caresses"), "caress");
    EXPECT_EQ(porter_stem("ponies"), "poni");
    EXPECT_EQ(porter_stem("cats"), "cat");
    // Step 1b: (m>0) EED -> EE: "agreed" -> "agree" (m("agr") = 1); Step 5a then drops the
    // final e because m("agre") = 1 and "agre" does not end consonant-vowel-consonant.
    EXPECT_EQ(porter_stem("agreed"), "agre");
    EXPECT_EQ(porter_stem("feed"), "feed");  // m("f") = 0: unchanged
    // Step 1b: ING removed (stem has a vowel), then the *d rule undoubles "pp".
    EXPECT_EQ(porter_stem("hopping"), "hop");
    EXPECT_EQ(porter_stem("falling"), "fall");  // "ll" is not undoubled (l, s, z)
    // ED removed, then (m=1 and *o) -> +E: "siz" is c-v-c -> "size"; 5a keeps the e (*o).
    EXPECT_EQ(porter_stem("sized"), "size");
    EXPECT_EQ(porter_stem("filing"), "file");
    // Step 1c: Y -> I after a consonant.
    EXPECT_EQ(porter_stem("happy"), "happi");
    // Step 2 ATIONAL -> ATE ("relate"); Step 4's first matching suffix is ATE but
    // m("rel") = 1 is not > 1, so nothing; Step 5a drops e since m("relat") = 2.
    EXPECT_EQ(porter_stem("relational"), "relat");
    // Step 2 IZATION -> IZE, Step 3 ALIZE -> AL, Step 4 AL (m("gener") = 2) -> "gener".
    EXPECT_EQ(porter_stem("generalization"), "gener");
    // ED removed ("controll"), *d but the letter is l so kept; Step 5b: (m>1, *d, *L) -> "control".
    EXPECT_EQ(porter_stem("controlled"), "control");
    EXPECT_EQ(porter_stem("1990s"), "1990");  // digits count as consonants
}

TEST(PorterStemmer, AppliesNltkExtensionsAsRougeScoreDoes) {
    // rouge-score uses nltk's PorterStemmer() default mode NLTK_EXTENSIONS:
    EXPECT_EQ(porter_stem("ties"), "tie");    // "ies" with length 4 -> "ie" (original: "ti")
    EXPECT_EQ(porter_stem("dying"), "die");   // irregular forms
    EXPECT_EQ(porter_stem("skies"), "sky");
    EXPECT_EQ(porter_stem("news"), "news");
    EXPECT_EQ(porter_stem("innings"), "inning");
    EXPECT_EQ(porter_stem("flies"), "fli");
    EXPECT_EQ(porter_stem("spied"), "spi");   // "ied" (length > 4) -> "i"
    EXPECT_EQ(porter_stem("died"), "die");    // "ied" with length 4 -> "ie"
    EXPECT_EQ(porter_stem("quickly"), "quickli");
    EXPECT_EQ(porter_stem("archaeology"), "archaeolog");  // Step 2 LOGI -> LOG (NLTK)
    EXPECT_EQ(porter_stem("by"), "by");        // length <= 2 untouched
}
