// The subset tumble reads, as one table, and the scan that holds a whole file against it before
// anything is built: every element, attribute and enumerated value outside it is listed in one
// error (a user's gripper file is one edit, not ten rounds of edit and retry), and what is read
// past (looks, sensors, MuJoCo's soft-contact values) is counted for one note.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "io/mjcf_internal.h"

//---- the table ---------------------------------------------------------------------------------

enum {
  TB_MJ_READ,   // its attributes and children are checked
  TB_MJ_LEAF,   // its attributes are checked; it holds nothing
  TB_MJ_LOOKS,  // read past whole, counted in the note
};

typedef struct tbMjRule {
  const char* parents;  // the elements it may sit in, each between spaces
  const char* name;
  int kind;                  // TB_MJ_READ, ...
  const char* const* attrs;  // NULL-terminated
} tbMjRule;

static const char* const tb_mjCompilerAttrs[] = {"angle",      "eulerseq", "inertiafromgeom",
                                                 "autolimits", "meshdir",  "assetdir",
                                                 "texturedir", NULL};
// a mesh's normals, texture coordinates and smoothing are for looks
static const char* const tb_mjMeshAttrs[] = {"name",         "file",         "scale",  "vertex",
                                             "face",         "inertia",      "normal", "texcoord",
                                             "smoothnormal", "content_type", NULL};
static const char* const tb_mjOptionAttrs[] = {"timestep", "gravity",    "cone",
                                               "solver",   "iterations", NULL};
static const char* const tb_mjSizeAttrs[] = {
    "nconmax",   "njmax",        "memory",         "nstack",       "nuserdata",
    "nkey",      "nuser_body",   "nuser_jnt",      "nuser_geom",   "nuser_site",
    "nuser_cam", "nuser_tendon", "nuser_actuator", "nuser_sensor", NULL};
static const char* const tb_mjGeomAttrs[] = {
    "name",   "class", "type",     "size",     "pos",  "quat",    "axisangle", "euler",
    "xyaxes", "zaxis", "fromto",   "friction", "mass", "density", "contype",   "conaffinity",
    "condim", "rgba",  "material", "group",    "mesh", NULL};
static const char* const tb_mjBodyAttrs[] = {"name",   "pos",   "quat",  "axisangle",  "euler",
                                             "xyaxes", "zaxis", "mocap", "childclass", NULL};
static const char* const tb_mjJointAttrs[] = {"name",  "class",   "type",    "pos",      "axis",
                                              "range", "limited", "damping", "armature", NULL};
static const char* const tb_mjJointDefaultAttrs[] = {"type",    "pos",     "axis",     "range",
                                                     "limited", "damping", "armature", NULL};
// an actuator's transmission, control and force ranges, and its law (mjcf_actuator.c)
#define TB_MJ_ACTUATOR \
  "name", "joint", "gear", "ctrlrange", "ctrllimited", "forcerange", "forcelimited"
static const char* const tb_mjPositionAttrs[] = {TB_MJ_ACTUATOR, "kp", "kv", NULL};
static const char* const tb_mjVelocityAttrs[] = {TB_MJ_ACTUATOR, "kv", NULL};
static const char* const tb_mjMotorAttrs[] = {TB_MJ_ACTUATOR, NULL};
static const char* const tb_mjGeneralAttrs[] = {TB_MJ_ACTUATOR, "gaintype", "biastype", "dyntype",
                                                "gainprm",      "biasprm",  NULL};
#undef TB_MJ_ACTUATOR
static const char* const tb_mjInertialAttrs[] = {"pos",         "quat",  "axisangle", "euler",
                                                 "xyaxes",      "zaxis", "mass",      "diaginertia",
                                                 "fullinertia", NULL};
static const char* const tb_mjEqualityAttrs[] = {"name", "body1", "body2", "anchor", NULL};
static const char* const tb_mjName_[] = {"name", NULL};
static const char* const tb_mjClass_[] = {"class", NULL};
static const char* const tb_mjModel_[] = {"model", NULL};
static const char* const tb_mjNumericAttrs[] = {"name", "data", NULL};
static const char* const tb_mjKeyAttrs[] = {"name", "time", "qpos", "qvel", "ctrl", NULL};
static const char* const tb_mjNoAttrs[] = {NULL};
static const char* const tb_mjExcludeAttrs[] = {"name", "body1", "body2", NULL};

#define TB_MJ_BODIES " worldbody body "
static const tbMjRule tb_mjRules[] = {
    {" (root) ", "mujoco", TB_MJ_READ, tb_mjModel_},
    {" mujoco ", "compiler", TB_MJ_LEAF, tb_mjCompilerAttrs},
    {" mujoco ", "option", TB_MJ_LEAF, tb_mjOptionAttrs},
    {" mujoco ", "size", TB_MJ_LEAF, tb_mjSizeAttrs},
    {" mujoco default ", "default", TB_MJ_READ, tb_mjClass_},
    {" default ", "geom", TB_MJ_LEAF, tb_mjGeomAttrs},
    {" default ", "joint", TB_MJ_LEAF, tb_mjJointDefaultAttrs},
    {" mujoco ", "custom", TB_MJ_READ, tb_mjNoAttrs},
    {" custom ", "numeric", TB_MJ_LEAF, tb_mjNumericAttrs},
    {" mujoco ", "keyframe", TB_MJ_READ, tb_mjNoAttrs},
    {" keyframe ", "key", TB_MJ_LEAF, tb_mjKeyAttrs},
    {" mujoco ", "worldbody", TB_MJ_READ, tb_mjNoAttrs},
    {TB_MJ_BODIES, "body", TB_MJ_READ, tb_mjBodyAttrs},
    {TB_MJ_BODIES, "geom", TB_MJ_LEAF, tb_mjGeomAttrs},
    {TB_MJ_BODIES, "joint", TB_MJ_LEAF, tb_mjJointAttrs},
    {TB_MJ_BODIES, "freejoint", TB_MJ_LEAF, tb_mjName_},
    {TB_MJ_BODIES, "inertial", TB_MJ_LEAF, tb_mjInertialAttrs},
    {" mujoco ", "actuator", TB_MJ_READ, tb_mjNoAttrs},
    {" actuator ", "position", TB_MJ_LEAF, tb_mjPositionAttrs},
    {" actuator ", "velocity", TB_MJ_LEAF, tb_mjVelocityAttrs},
    {" actuator ", "motor", TB_MJ_LEAF, tb_mjMotorAttrs},
    {" actuator ", "general", TB_MJ_LEAF, tb_mjGeneralAttrs},
    {" mujoco ", "equality", TB_MJ_READ, tb_mjNoAttrs},
    {" mujoco ", "contact", TB_MJ_READ, tb_mjNoAttrs},
    {" contact ", "exclude", TB_MJ_LEAF, tb_mjExcludeAttrs},
    {" equality ", "connect", TB_MJ_LEAF, tb_mjEqualityAttrs},
    {" equality ", "weld", TB_MJ_LEAF, tb_mjEqualityAttrs},
    {" mujoco ", "asset", TB_MJ_READ, tb_mjNoAttrs},
    {" asset ", "mesh", TB_MJ_LEAF, tb_mjMeshAttrs},
    {" asset ", "texture", TB_MJ_LOOKS, NULL},
    {" asset ", "material", TB_MJ_LOOKS, NULL},
    {" mujoco ", "visual", TB_MJ_LOOKS, NULL},
    {" mujoco ", "statistic", TB_MJ_LOOKS, NULL},
    {TB_MJ_BODIES "default ", "site", TB_MJ_LOOKS, NULL},
    {TB_MJ_BODIES, "camera", TB_MJ_LOOKS, NULL},
    {TB_MJ_BODIES, "light", TB_MJ_LOOKS, NULL},
    {" mujoco ", "sensor", TB_MJ_LOOKS, NULL},
};
#undef TB_MJ_BODIES

// attributes whose values tumble checks against a list here, wherever they are given
typedef struct tbMjWords {
  const char* elem;
  const char* attr;
  const char* const* words;
} tbMjWords;

static const char* const tb_mjCondims[] = {"3", NULL};
// tumble integrates a mesh's volume exactly: MuJoCo's legacy default agrees on a closed surface
static const char* const tb_mjMeshInertias[] = {"legacy", "exact", NULL};
static const tbMjWords tb_mjValueRules[] = {
    {"geom", "type", tb_mjGeomTypes},
    {"mesh", "inertia", tb_mjMeshInertias},
    {"geom", "condim", tb_mjCondims},
    {"joint", "type", tb_mjJointTypes},
};

// MuJoCo's soft-contact values on a geom: read past, counted (tumble's contacts are hard)
static const char* const tb_mjSoftAttrs[] = {"solref", "solimp", "solmix", "margin", "gap", NULL};

//---- what the scan finds -----------------------------------------------------------------------

#define TB_MJ_MAXFOUND 64

// one kind of thing outside the subset: where it is first, and how often it comes
typedef struct tbMjFound {
  char what[160];    // "<geom> attribute 'solref'", ...
  const char* file;  // the model's, or an <include>d one's
  long line, last;
  int count;
} tbMjFound;

// counts of what was read past, by name
typedef struct tbMjPast {
  const char* name;
  int count;
} tbMjPast;

typedef struct tbMjScan {
  const char* file;
  tbMjFound found[TB_MJ_MAXFOUND];
  int nfound, more;  // more: kinds beyond TB_MJ_MAXFOUND
  tbMjPast looks[16], soft[8];
  int nlooks, nsoft;
} tbMjScan;

static int tb_mjIn(const char* const* words, const char* s) {
  for (int i = 0; words[i]; i++) {
    if (!strcmp(words[i], s)) return 1;
  }
  return 0;
}

static void tb_mjOutside(tbMjScan* s, xmlNodePtr n, const char* fmt, const char* a, const char* b) {
  char what[160];
  snprintf(what, sizeof(what), fmt, (const char*)n->name, a, b);
  long line = xmlGetLineNo(n);
  for (int i = 0; i < s->nfound; i++) {
    if (!strcmp(s->found[i].what, what)) {
      s->found[i].count++;
      s->found[i].last = line;
      return;
    }
  }
  if (s->nfound == TB_MJ_MAXFOUND) {
    s->more++;
    return;
  }
  tbMjFound* f = &s->found[s->nfound++];
  snprintf(f->what, sizeof(f->what), "%s", what);
  f->file = n->_private ? (const char*)n->_private : s->file;
  f->line = f->last = line;
  f->count = 1;
}

static void tb_mjCount(tbMjPast* past, int* n, int cap, const char* name) {
  for (int i = 0; i < *n; i++) {
    if (!strcmp(past[i].name, name)) {
      past[i].count++;
      return;
    }
  }
  if (*n < cap) past[(*n)++] = (tbMjPast){name, 1};
}

static const tbMjRule* tb_mjRule(xmlNodePtr n) {
  char parent[40] = " (root) ";
  if (n->parent && n->parent->type == XML_ELEMENT_NODE) {
    snprintf(parent, sizeof(parent), " %s ", (const char*)n->parent->name);
  }
  for (size_t i = 0; i < sizeof(tb_mjRules) / sizeof(tb_mjRules[0]); i++) {
    const tbMjRule* r = &tb_mjRules[i];
    if (!strcmp(r->name, (const char*)n->name) && strstr(r->parents, parent)) return r;
  }
  return NULL;
}

static void tb_mjScanValue(tbMjScan* s, xmlNodePtr n, xmlAttrPtr a) {
  for (size_t i = 0; i < sizeof(tb_mjValueRules) / sizeof(tb_mjValueRules[0]); i++) {
    const tbMjWords* w = &tb_mjValueRules[i];
    if (strcmp(w->elem, (const char*)n->name) || strcmp(w->attr, (const char*)a->name)) continue;
    if (tb_mjIn(w->words, tb_mjValue(a))) return;
    char list[160] = "";
    for (int k = 0; w->words[k]; k++) {
      snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", k ? ", " : "",
               w->words[k]);
    }
    char value[96];
    snprintf(value, sizeof(value), "%s=\"%.64s\"", w->attr, tb_mjValue(a));
    tb_mjOutside(s, n, "<%s> %s: tumble takes %s", value, list);
  }
}

static void tb_mjScanAttrs(tbMjScan* s, xmlNodePtr n, const tbMjRule* r) {
  int geom = !strcmp(r->name, "geom");
  for (xmlAttrPtr a = n->properties; a; a = a->next) {
    const char* name = (const char*)a->name;
    if (tb_mjIn(r->attrs, name)) {
      tb_mjScanValue(s, n, a);
    } else if (geom && tb_mjIn(tb_mjSoftAttrs, name)) {
      tb_mjCount(s->soft, &s->nsoft, 8, name);
    } else {
      tb_mjOutside(s, n, "<%s> attribute '%s' is outside tumble's MJCF subset%s", name, "");
    }
  }
}

static void tb_mjScanNode(tbMjScan* s, xmlNodePtr n) {
  const tbMjRule* r = tb_mjRule(n);
  if (!r) {
    tb_mjOutside(s, n, "<%s> element outside tumble's MJCF subset%s%s", "", "");
    return;
  }
  if (r->kind == TB_MJ_LOOKS) {
    tb_mjCount(s->looks, &s->nlooks, 16, r->name);
    return;
  }
  tb_mjScanAttrs(s, n, r);
  for (xmlNodePtr k = n->children; k; k = k->next) {
    if (k->type == XML_ELEMENT_NODE && r->kind == TB_MJ_READ) {
      tb_mjScanNode(s, k);
    } else if (k->type == XML_ELEMENT_NODE) {
      tb_mjOutside(s, k, "<%s> element outside tumble's MJCF subset%s%s", "", "");
    } else if (k->type != XML_COMMENT_NODE && !xmlIsBlankNode(k)) {
      tb_mjOutside(s, n, "<%s> holds text or markup tumble does not read%s%s", "", "");
    }
  }
}

//---- the error and the note --------------------------------------------------------------------

static int tb_mjOutsideError(const tbMjScan* s) {
  char msg[3800];
  size_t len = 0;
  int shown = 0;
  for (int i = 0; i < s->nfound && len + 300 < sizeof(msg); i++, shown++) {
    const tbMjFound* f = &s->found[i];
    len += (size_t)snprintf(msg + len, sizeof(msg) - len, "%s%s:%ld: %s", i ? "\n" : "", f->file,
                            f->line, f->what);
    if (f->count > 1) {
      len += (size_t)snprintf(msg + len, sizeof(msg) - len, " (%d times, to line %ld)", f->count,
                              f->last);
    }
  }
  int kinds = s->nfound + s->more;
  if (kinds > 1) {
    snprintf(msg + len, sizeof(msg) - len,
             "\n%s: %d kinds of element, attribute or value outside tumble's MJCF subset%s "
             "(docs/mjcf.md lists it); nothing was loaded",
             s->file, kinds, shown < kinds ? ", the first shown" : "");
  }
  return tb_setError("%s", msg);
}

static void tb_mjPastNote(const tbMjScan* s, char* note, size_t cap) {
  size_t len = 0;
  note[0] = 0;
  for (int i = 0; i < s->nlooks && len < cap; i++) {
    len += (size_t)snprintf(note + len, cap - len, "%s%d <%s>",
                            i ? ", " : "read past: ", s->looks[i].count, s->looks[i].name);
  }
  if (s->nlooks && len < cap) {
    len += (size_t)snprintf(note + len, cap - len,
                            " (looks and sensing: tumble's outputs are the bodies' states)");
  }
  for (int i = 0; i < s->nsoft && len < cap; i++) {
    len += (size_t)snprintf(note + len, cap - len, "%s%d %s",
                            i           ? ", "
                            : s->nlooks ? "; "
                                        : "read past: ",
                            s->soft[i].count, s->soft[i].name);
  }
  if (s->nsoft && len < cap) {
    snprintf(note + len, cap - len,
             " on <geom> (MuJoCo's soft contact: tumble's contacts are hard)");
  }
}

int tb_mjSubset(tbMj* c, xmlNodePtr root) {
  tbMjScan* s = (tbMjScan*)calloc(1, sizeof(tbMjScan));
  if (!s) return tb_setError("%s: out of memory", c->file);
  s->file = c->file;
  tb_mjScanNode(s, root);
  int rc = s->nfound ? tb_mjOutsideError(s) : 0;
  if (!rc) tb_mjPastNote(s, c->note, sizeof(c->note));
  free(s);
  return rc ? 2 : 0;
}
