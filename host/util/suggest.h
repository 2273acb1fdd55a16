// The closest of a list of names to a misspelled one, for errors that suggest the fix ("did you
// mean --scenes?").
#ifndef TUMBLE_HOST_SUGGEST_H_
#define TUMBLE_HOST_SUGGEST_H_

#ifdef __cplusplus
extern "C" {
#endif

// the edit distance of a and b: insertions, deletions, substitutions and swaps of two adjacent
// characters (Damerau-Levenshtein, optimal string alignment), each 1; words of at most 63
// characters (a longer one counts as far from all)
int tb_editDistance(const char* a, const char* b);
// the choice of the n (NULL entries skipped) closest to word, if within max(1, len/3) edits of
// it (len: word's length), so that only a likely slip is suggested; NULL when none is
const char* tb_closest(const char* word, const char* const* choices, int n);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_SUGGEST_H_
