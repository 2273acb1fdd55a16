// CSV fields as RFC 4180 has them (csv.h).
#include <string.h>

#include "util/csv.h"

// the characters that end or open a field: such a text is quoted
static int tb_csvNeedsQuotes(const char* s) {
  return s[strcspn(s, ",\"\r\n")] != 0;
}

static void tb_csvQuotedPart(FILE* f, const char* s) {
  for (; *s; s++) {
    if (*s == '"') fputc('"', f);
    fputc(*s, f);
  }
}

void tb_csvFieldSuffix(FILE* f, const char* s, const char* suffix) {
  if (!tb_csvNeedsQuotes(s) && !tb_csvNeedsQuotes(suffix)) {
    fputs(s, f);
    fputs(suffix, f);
    return;
  }
  fputc('"', f);
  tb_csvQuotedPart(f, s);
  tb_csvQuotedPart(f, suffix);
  fputc('"', f);
}

void tb_csvField(FILE* f, const char* s) {
  tb_csvFieldSuffix(f, s, "");
}

// a bare field: up to the next comma or line end
static char* tb_csvBare(char** at, char* end) {
  char* field = *at;
  char* p = field + strcspn(field, ",\n");
  *end = *p;
  if (p > field && p[-1] == '\r' && *p == '\n') p[-1] = 0;
  if (*p) *p++ = 0;
  *at = p;
  return field;
}

// a quoted field: its text copied down over its quotes, a doubled quote read as one
static char* tb_csvQuoted(char** at, char* end) {
  char* field = *at;
  char *r = field + 1, *w = field;
  for (;; r++) {
    if (!*r) return NULL;  // not closed
    if (*r != '"') {
      *w++ = *r;
    } else if (r[1] == '"') {
      *w++ = *r++;
    } else {
      break;
    }
  }
  r++;  // past the closing quote
  if (*r == '\r' && r[1] == '\n') r++;
  if (*r && *r != ',' && *r != '\n') return NULL;
  *end = *r;
  *w = 0;
  *at = *r ? r + 1 : r;
  return field;
}

char* tb_csvNext(char** at, char* end) {
  return **at == '"' ? tb_csvQuoted(at, end) : tb_csvBare(at, end);
}
