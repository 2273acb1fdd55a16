// Every element's attributes go through these, so each is checked and inherits its class alike
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "io/mjcf_internal.h"

//---- messages and attributes -------------------------------------------------------------------

const char* tb_mjFileOf(const tbMj* c, xmlNodePtr n) {
  return n->_private ? (const char*)n->_private : c->file;
}

const char* tb_mjValue(xmlAttrPtr a) {
  return a && a->children && a->children->content ? (const char*)a->children->content : "";
}

// an error at element n; a custom numeric is named, its name being what it sets
int tb_mjFail(const tbMj* c, xmlNodePtr n, const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  const char* tag = (const char*)n->name;
  xmlAttrPtr name = strcmp(tag, "numeric") ? NULL : xmlHasProp(n, (const xmlChar*)"name");
  if (name) {
    return tb_setError("%s:%ld: <numeric name=\"%s\"> %s", tb_mjFileOf(c, n), xmlGetLineNo(n),
                       tb_mjValue(name), msg);
  }
  return tb_setError("%s:%ld: <%s> %s", tb_mjFileOf(c, n), xmlGetLineNo(n), tag, msg);
}

// the engine's last error, after a prefix
int tb_mjPrefix(const char* file, const char* what) {
  char msg[256];
  snprintf(msg, sizeof(msg), "%s", tb_lastError());
  return tb_setError("%s: %s: %s", file, what, msg);
}

int tb_mjIs(xmlNodePtr n, const char* name) {
  return n->type == XML_ELEMENT_NODE && !strcmp((const char*)n->name, name);
}

static int tb_mjKind(xmlNodePtr n) {
  if (tb_mjIs(n, "geom")) return TB_MJ_GEOM;
  if (tb_mjIs(n, "joint")) return TB_MJ_JOINT;
  return -1;
}

// the attribute on n, else on its class chain's defaults of the same element; *where is the
// element that holds it (for messages). NULL: not given anywhere.
const char* tb_mjAttr(const tbMj* c, xmlNodePtr n, int cls, const char* name, xmlNodePtr* where) {
  *where = n;
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)name);
  if (a) return tb_mjValue(a);
  int kind = tb_mjKind(n);
  for (int k = kind < 0 ? -1 : cls; k >= 0; k = c->cls[k].parent) {
    xmlNodePtr d = c->cls[k].elem[kind];
    if (d && (a = xmlHasProp(d, (const xmlChar*)name))) {
      *where = d;
      return tb_mjValue(a);
    }
  }
  return NULL;
}

// between lo and hi numbers of attribute name into v; the count (0: not given), or -1 (error set)
int tb_mjNums(const tbMj* c, xmlNodePtr n, int cls, const char* name, double* v, int lo, int hi) {
  xmlNodePtr where;
  const char* s = tb_mjAttr(c, n, cls, name, &where);
  if (!s) return 0;
  int k = 0;
  for (;;) {
    while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
    if (!*s) break;
    char* end;
    double x = strtod(s, &end);
    if (end == s || k == hi || !isfinite(x)) {
      char count[32];
      snprintf(count, sizeof(count), lo == hi ? "%d" : "%d to %d", lo, hi);
      tb_mjFail(c, where, "%s=\"%s\": expected %s finite numbers", name,
                tb_mjValue(xmlHasProp(where, (const xmlChar*)name)), count);
      return -1;
    }
    v[k++] = x;
    s = end;
  }
  if (k < lo) {
    tb_mjFail(c, where, "%s: %d numbers, expected %d%s", name, k, lo, hi > lo ? " or more" : "");
    return -1;
  }
  return k;
}

const char* tb_mjStr(const tbMj* c, xmlNodePtr n, int cls, const char* name, const char* dflt) {
  xmlNodePtr where;
  const char* s = tb_mjAttr(c, n, cls, name, &where);
  return s ? s : dflt;
}

// index of s in the NULL-terminated words, or -1 with the error set
int tb_mjWord(const tbMj* c, xmlNodePtr n, int cls, const char* name, const char* dflt,
              const char* const* words) {
  const char* s = tb_mjStr(c, n, cls, name, dflt);
  for (int i = 0; words[i]; i++) {
    if (!strcmp(s, words[i])) return i;
  }
  char list[160] = "";
  for (int i = 0; words[i]; i++) {
    snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", words[i]);
  }
  xmlNodePtr where;
  tb_mjAttr(c, n, cls, name, &where);
  tb_mjFail(c, where, "%s=\"%s\": tumble takes %s", name, s, list);
  return -1;
}

const char* tb_mjName(xmlNodePtr n) {
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)"name");
  return a ? tb_mjValue(a) : NULL;
}

//---- classes and defaults ----------------------------------------------------------------------

int tb_mjFindClass(const tbMj* c, xmlNodePtr n, const char* name) {
  for (int k = 0; k < c->ncls; k++) {
    if (!strcmp(c->cls[k].name, name)) return k;
  }
  tb_mjFail(c, n, "class '%s' is not a <default> class", name);
  return -1;
}

// the class an element uses: its own class=, else the body's childclass
int tb_mjClassOf(const tbMj* c, xmlNodePtr n, int childclass) {
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)"class");
  return a ? tb_mjFindClass(c, n, tb_mjValue(a)) : childclass;
}

int tb_mjDefault(tbMj* c, xmlNodePtr n, int parent) {
  const char* name = parent < 0 ? "main" : NULL;
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar*)"class");
  if (a) name = tb_mjValue(a);
  if (!name) return tb_mjFail(c, n, "a nested <default> needs class=");
  if (parent < 0 && strcmp(name, "main")) return tb_mjFail(c, n, "the top <default> is 'main'");
  for (int k = 0; k < c->ncls; k++) {
    if (!strcmp(c->cls[k].name, name)) return tb_mjFail(c, n, "class '%s' defined twice", name);
  }
  tbMjClass* cl = (tbMjClass*)realloc(c->cls, sizeof(tbMjClass) * (size_t)(c->ncls + 1));
  if (!cl) return tb_mjFail(c, n, "out of memory");
  c->cls = cl;
  int me = c->ncls++;
  memset(&cl[me], 0, sizeof(cl[me]));
  cl[me].name = name;
  cl[me].parent = parent;
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type != XML_ELEMENT_NODE) continue;
    int kind = tb_mjKind(k);
    if (tb_mjIs(k, "default")) {
      if (tb_mjDefault(c, k, me)) return 2;
    } else if (kind >= 0) {
      if (c->cls[me].elem[kind]) return tb_mjFail(c, k, "a second <%s> in one class", k->name);
      if (xmlHasProp(k, (const xmlChar*)"class") || xmlHasProp(k, (const xmlChar*)"name")) {
        return tb_mjFail(c, k, "a default takes no name or class");
      }
      c->cls[me].elem[kind] = k;
    }
  }
  return 0;
}
