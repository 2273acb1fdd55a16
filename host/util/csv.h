// CSV fields as RFC 4180 has them: a name the user gave (a body, a geom, a joint, a parameter of
// an MJCF file or --param) may hold a comma, a quote or a line break, which written bare would
// shift the columns of its row or split it in two.
#ifndef TUMBLE_HOST_CSV_H_
#define TUMBLE_HOST_CSV_H_

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

// s then suffix ("" for none) as one field: bare when neither holds a comma, quote, CR or LF,
// else in quotes with each quote doubled (so `mu` stays `mu`, and `a,"b` becomes `"a,""b"`)
void tb_csvFieldSuffix(FILE* f, const char* s, const char* suffix);
// s as one field (tb_csvFieldSuffix with no suffix)
void tb_csvField(FILE* f, const char* s);
// the field at *at of a CSV text, unquoted in place and NUL-terminated; *end gets what ended it
// (',', '\n', or 0 at the text's end) and *at moves past that. NULL when a quoted field is not
// closed or a closing quote is followed by anything but a comma or a line end (a CR before the
// LF is dropped)
char* tb_csvNext(char** at, char* end);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_CSV_H_
