// Edit distances for "did you mean" suggestions.
#include "util/suggest.h"

#include <string.h>

#define TB_SUGGEST_MAXLEN 63

int tb_editDistance(const char* a, const char* b) {
  int na = (int)strlen(a), nb = (int)strlen(b);
  if (na > TB_SUGGEST_MAXLEN || nb > TB_SUGGEST_MAXLEN) return na > nb ? na : nb;
  // d[i][j]: the distance of a's first i characters and b's first j
  int d[TB_SUGGEST_MAXLEN + 1][TB_SUGGEST_MAXLEN + 1];
  for (int i = 0; i <= na; i++) d[i][0] = i;
  for (int j = 0; j <= nb; j++) d[0][j] = j;
  for (int i = 1; i <= na; i++) {
    for (int j = 1; j <= nb; j++) {
      int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      int swap = i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1];
      if (swap && d[i - 2][j - 2] + 1 < best) best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  }
  return d[na][nb];
}

const char* tb_closest(const char* word, const char* const* choices, int n) {
  int len = (int)strlen(word);
  int cap = len / 3 > 1 ? len / 3 : 1;
  const char* best = NULL;
  int dbest = cap + 1;
  for (int i = 0; i < n; i++) {
    if (!choices[i]) continue;
    int dist = tb_editDistance(word, choices[i]);
    if (dist < dbest) {
      dbest = dist;
      best = choices[i];
    }
  }
  return best;
}
