// MJCF reader (include/tumble/mjcf.h): libxml2 parses the file into a tree; one walk of the body
// tree does MuJoCo's forward kinematics (with the first keyframe's qpos and qvel) and adds each
// body, its shapes and its joint to a tbModel; named values become parameters; the model is
// compiled. The whole document is first held against the subset (mjcf_subset.c), so nothing is
// skipped unsaid. This file reads the document and walks its sections; mjcf_attr.c, mjcf_geom.c,
// mjcf_body.c, mjcf_equality.c and mjcf_custom.c hold the parts (mjcf_internal.h).
#include <libxml/parser.h>
#include <libxml/tree.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tumble/mjcf.h>

#include "math/tb_math.h"
#include "util/error.h"
#include "io/mjcf_internal.h"

//---- top-level sections ------------------------------------------------------------------------

static int tb_mjCompiler(tbMj* c, xmlNodePtr n) {
  static const char* const angle[] = {"degree", "radian", NULL};
  static const char* const auto_[] = {"auto", NULL};
  static const char* const yes[] = {"true", NULL};
  int a = tb_mjWord(c, n, -1, "angle", c->angle == 1.0 ? "radian" : "degree", angle);
  if (a < 0 || tb_mjWord(c, n, -1, "inertiafromgeom", "auto", auto_) < 0 ||
      tb_mjWord(c, n, -1, "autolimits", "true", yes) < 0)
    return 2;
  c->angle = a ? 1.0 : TB_PI / 180.0;
  const char* seq = tb_mjStr(c, n, -1, "eulerseq", c->seq);
  if (strlen(seq) != 3 || strspn(seq, "xyzXYZ") != 3) {
    return tb_mjFail(c, n, "eulerseq=\"%s\": three of x, y, z, X, Y, Z", seq);
  }
  memcpy(c->seq, seq, 4);
  // meshdir, else assetdir (MuJoCo's rule); texturedir is for looks
  const char* dir = tb_mjStr(c, n, -1, "meshdir", tb_mjStr(c, n, -1, "assetdir", ""));
  if (strlen(dir) >= sizeof(c->meshdir)) return tb_mjFail(c, n, "meshdir: longer than 1023 bytes");
  snprintf(c->meshdir, sizeof(c->meshdir), "%s", dir);
  return 0;
}

// MuJoCo's solver names as tumble's step solvers: its Newton is auto (PGS, then a Newton
// polish); CG has no counterpart
static int tb_mjSolver(const tbMj* c, xmlNodePtr n, tbOption* o) {
  static const char* const solvers[] = {"PGS", "Newton", NULL};
  int s = tb_mjWord(c, n, -1, "solver", o->solver == TB_SOLVER_AUTO ? "Newton" : "PGS", solvers);
  if (s < 0) return 2;
  o->solver = s ? TB_SOLVER_AUTO : TB_SOLVER_PGS;
  double it = o->max_iter;
  if (tb_mjNums(c, n, -1, "iterations", &it, 1, 1) < 0) return 2;
  if (!(it >= 1.0 && it <= 1e6 && it == floor(it))) {
    return tb_mjFail(c, n, "iterations %g: a whole number from 1 to 1e6", it);
  }
  o->max_iter = (int)it;
  return 0;
}

static int tb_mjOption(tbMj* c, xmlNodePtr n) {
  static const char* const cones[] = {"elliptic", "pyramidal", NULL};
  tbOption* o = &c->m->opt;
  int cone =
      tb_mjWord(c, n, -1, "cone", o->cone == TB_CONE_EXACT ? "elliptic" : "pyramidal", cones);
  if (cone < 0 || tb_mjNums(c, n, -1, "timestep", &o->timestep, 1, 1) < 0 ||
      tb_mjNums(c, n, -1, "gravity", o->gravity, 3, 3) < 0)
    return 2;
  // the ranges of the parameters opt.timestep and opt.gravity_x, _y, _z; the shortest step is
  // the scene's (tb_mjCheckValues)
  if (!(o->timestep > 0.0 && o->timestep <= TB_MAX_DT)) {
    return tb_mjFail(c, n, "timestep=\"%s\": must be in (0, %g] s",
                     tb_mjStr(c, n, -1, "timestep", ""), TB_MAX_DT);
  }
  for (int k = 0; k < 3; k++) {
    if (!(fabs(o->gravity[k]) <= 1e4)) {
      return tb_mjFail(c, n, "gravity=\"%s\": each component must be in [-1e4, 1e4] m/s^2",
                       tb_mjStr(c, n, -1, "gravity", ""));
    }
  }
  c->option = n;
  o->cone = cone ? TB_CONE_PYRAMID : TB_CONE_EXACT;
  return tb_mjSolver(c, n, o);
}

// <size>: nconmax caps a scene's contacts (tbOption.maxcon), as MuJoCo's does; the others size
// MuJoCo's own arena, where tumble sizes its scratch from the model
static int tb_mjSize(tbMj* c, xmlNodePtr n) {
  double v = -1.0;
  if (tb_mjNums(c, n, -1, "nconmax", &v, 0, 1) < 0) return 2;
  if (v == -1.0) return 0;  // MuJoCo's "not set"
  if (!(v >= 1.0 && v <= 1 << 24 && v == floor(v))) {
    return tb_mjFail(c, n, "nconmax=\"%s\": a whole number of contacts a scene in [1, %d], or -1",
                     tb_mjStr(c, n, -1, "nconmax", ""), 1 << 24);
  }
  c->m->opt.maxcon = (int)v;
  return 0;
}

// <contact>'s <exclude body1 body2>: the two bodies' shapes never touch (MuJoCo's rule; the world
// is the static body "world", which exists where the world has shapes)
static int tb_mjContact(tbMj* c, xmlNodePtr n) {
  for (xmlNodePtr k = xmlFirstElementChild(n); k; k = xmlNextElementSibling(k)) {
    const char* name[2] = {tb_mjStr(c, k, -1, "body1", NULL), tb_mjStr(c, k, -1, "body2", NULL)};
    int b[2];
    for (int i = 0; i < 2; i++) {
      if (!name[i]) return tb_mjFail(c, k, "an exclude needs body1= and body2=");
      b[i] = tb_mjFindBody(c, name[i]);
      if (b[i] < 0 && strcmp(name[i], "world")) {
        return tb_mjFail(c, k, "body%d=\"%s\": no body of that name", i + 1, name[i]);
      }
    }
    if (b[0] == b[1] && b[0] >= 0) return tb_mjFail(c, k, "body1 and body2 are one body");
    if (b[0] >= 0 && b[1] >= 0 && tb_excludeContact(c->m, b[0], b[1]) != TB_OK) {
      return tb_mjFail(c, k, "%s", tb_lastError());
    }
  }
  return 0;
}

static int tb_mjKeyframe(tbMj* c, xmlNodePtr n) {
  xmlNodePtr k = xmlFirstElementChild(n);
  if (!k) return 0;
  double t = 0.0;
  if (tb_mjNums(c, k, -1, "time", &t, 1, 1) < 0) return 2;
  if (t != 0.0) return tb_mjFail(c, k, "time %g: tumble starts at 0", t);
  // a number takes at least two characters with its separator
  xmlNodePtr w;
  const char* qp = tb_mjAttr(c, k, -1, "qpos", &w);
  const char* qv = tb_mjAttr(c, k, -1, "qvel", &w);
  size_t lp = qp ? strlen(qp) : 0, lv = qv ? strlen(qv) : 0;
  int cap = (int)((lp > lv ? lp : lv) / 2 + 1);
  c->qpos = (double*)malloc(sizeof(double) * (size_t)cap);
  c->qvel = (double*)malloc(sizeof(double) * (size_t)cap);
  if (!c->qpos || !c->qvel) return tb_mjFail(c, k, "out of memory");
  if ((c->nqpos = tb_mjNums(c, k, -1, "qpos", c->qpos, 0, cap)) < 0 ||
      (c->nqvel = tb_mjNums(c, k, -1, "qvel", c->qvel, 0, cap)) < 0)
    return 2;
  // velocities in the range of the parameters vx0 .. wz0 (the coordinates: tb_mjApplyJoint)
  for (int i = 0; i < c->nqvel; i++) {
    if (!(fabs(c->qvel[i]) <= TB_MAX_SPEED)) {
      return tb_mjFail(c, k, "qvel: number %d, %g, must be in [-%g, %g] (m/s, rad/s)", i + 1,
                       c->qvel[i], TB_MAX_SPEED, TB_MAX_SPEED);
    }
  }
  if (!c->nqpos) free(c->qpos), c->qpos = NULL;
  if (!c->nqvel) free(c->qvel), c->qvel = NULL;
  c->key = k;
  return 0;
}

//---- the file ----------------------------------------------------------------------------------

// the sections in the order they depend on one another
static int tb_mjSections(tbMj* c, xmlNodePtr root) {
  static const char* const order[] = {"compiler", "default", "option",   "custom",
                                      "keyframe", "asset",   "actuator", "worldbody",
                                      "equality", "size",    "contact",  NULL};
  if (!tb_mjIs(root, "mujoco")) return tb_mjFail(c, root, "the root element must be <mujoco>");
  if (root->doc->intSubset) return tb_mjFail(c, root, "a DTD (entities) is outside the subset");
  if (tb_mjSubset(c, root)) return 2;
  for (int i = 0; order[i]; i++) {
    int seen = 0;
    for (xmlNodePtr k = xmlFirstElementChild(root); k; k = xmlNextElementSibling(k)) {
      if (!tb_mjIs(k, order[i])) continue;
      int rc = 0;
      if (i == 0) rc = tb_mjCompiler(c, k);
      if (i == 1) rc = seen ? tb_mjFail(c, k, "a second top <default>") : tb_mjDefault(c, k, -1);
      if (i == 2) rc = tb_mjOption(c, k);
      if (i == 3 && !(rc = tb_mjCustom(c, k))) rc = tb_mjModelNumerics(c);
      if (i == 4) rc = seen ? tb_mjFail(c, k, "a second <keyframe>") : tb_mjKeyframe(c, k);
      if (i == 5) rc = tb_mjAssets(c, k);
      if (i == 6) rc = seen ? tb_mjFail(c, k, "a second <actuator>") : tb_mjActuators(c, k);
      if (i == 7) rc = seen ? tb_mjFail(c, k, "a second <worldbody>") : tb_mjWorld(c, k);
      if (i == 8) rc = tb_mjEquality(c, k);
      if (i == 9) rc = seen ? tb_mjFail(c, k, "a second <size>") : tb_mjSize(c, k);
      if (i == 10) rc = tb_mjContact(c, k);
      if (rc) return rc;
      seen = 1;
    }
    if (i == 1 && !seen) {  // the implicit main class
      static const tbMjClass main_class = {"main", -1, {NULL, NULL}};
      c->cls = (tbMjClass*)malloc(sizeof(tbMjClass));
      if (!c->cls) return tb_setError("%s: out of memory", c->file);
      c->cls[0] = main_class;
      c->ncls = 1;
    }
  }
  for (int i = 0; i < c->nnumeric; i++) {
    if (!c->numeric_used[i]) {
      return tb_mjFail(c, c->numeric[i],
                       "names nothing that takes it (a mocap body for a driver, a "
                       "moving body for force, a body with a tripod, a shape, joint or "
                       "equality for compliance, a shape for restitution)");
    }
  }
  if (tb_mjActuatorsUsed(c)) return 2;
  if (c->key && (c->iq != c->nqpos && c->nqpos)) {
    return tb_mjFail(c, c->key, "qpos has %d numbers, the model's joints take %d", c->nqpos, c->iq);
  }
  if (c->key && (c->iv != c->nqvel && c->nqvel)) {
    return tb_mjFail(c, c->key, "qvel has %d numbers, the model's joints take %d", c->nqvel, c->iv);
  }
  return 0;
}

// a whole file's bytes (malloc'd, NUL-ended), or NULL with the error set
static char* tb_mjSlurp(const char* path, int* n) {
  errno = 0;
  FILE* f = fopen(path, "rb");
  char* buf = NULL;
  long len = -1;
  if (f && !fseek(f, 0, SEEK_END) && (len = ftell(f)) >= 0 && len < INT_MAX &&
      !fseek(f, 0, SEEK_SET) && (buf = (char*)malloc((size_t)len + 1)) &&
      fread(buf, 1, (size_t)len, f) == (size_t)len) {
    buf[len] = 0;
    *n = (int)len;
  } else {
    tb_setError("%s: cannot read the file (%s)", path, errno ? strerror(errno) : "too large");
    free(buf);
    buf = NULL;
  }
  if (f) fclose(f);
  return buf;
}

static void tb_mjQuiet(void* ctx, const char* msg, ...) {
  (void)ctx;
  (void)msg;
}

// the parser's first error: after a tag left open libxml2 goes on to the end of the file, and its
// last error names the outermost element there; the first names the element left open
typedef struct tbMjXmlError {
  int seen, line, code, opened;  // opened: the line where an element left open began, or 0
  char msg[200];
} tbMjXmlError;

static void tb_mjFirstError(void* data, xmlErrorPtr e) {
  tbMjXmlError* first = (tbMjXmlError*)((xmlParserCtxtPtr)data)->_private;
  if (first->seen) return;
  first->seen = 1;
  first->line = e->line;
  first->code = e->code;
  int open = e->code == XML_ERR_TAG_NAME_MISMATCH || e->code == XML_ERR_TAG_NOT_FINISHED;
  first->opened = open ? e->int1 : 0;
  snprintf(first->msg, sizeof(first->msg), "%s", e->message ? e->message : "");
  first->msg[strcspn(first->msg, "\n")] = 0;
}

// the document of src (a path, or the XML itself); NULL with the error set. The file is read
// here, so libxml2 opens nothing itself (no external entities, no network). An element left
// open is reported at the line where it opened.
static xmlDocPtr tb_mjRead(const char* src, const char** file) {
  const char* s = src;
  while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r') s++;
  int n = 0;
  char* text = NULL;
  *file = *s == '<' ? "<string>" : src;
  if (*s != '<' && !(text = tb_mjSlurp(src, &n))) return NULL;
  xmlParserCtxtPtr ctx = xmlNewParserCtxt();
  if (!ctx) {
    free(text);
    tb_setError("%s: out of memory", *file);
    return NULL;
  }
  tbMjXmlError first = {0, 0, 0, 0, ""};
  ctx->_private = &first;
  ctx->sax->serror = tb_mjFirstError;
  int opts = XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_BIG_LINES;
  // a declared encoding the bytes break is reported on libxml2's generic channel, whatever the
  // parser's options: quiet for the parse (the parser's own last error names the line)
  xmlGenericErrorFunc was = xmlGenericError;
  void* was_ctx = xmlGenericErrorContext;
  xmlSetGenericErrorFunc(NULL, tb_mjQuiet);
  xmlDocPtr doc = text ? xmlCtxtReadMemory(ctx, text, n, NULL, NULL, opts)
                       : xmlCtxtReadMemory(ctx, src, (int)strlen(src), NULL, NULL, opts);
  xmlSetGenericErrorFunc(was_ctx, was);
  if (!doc && first.seen) {
    tb_setError("%s:%d: not well-formed XML: %s", *file, first.opened ? first.opened : first.line,
                first.msg);
  } else if (!doc) {
    const xmlError* e = xmlCtxtGetLastError(ctx);
    char msg[200] = "";
    if (e && e->message) snprintf(msg, sizeof(msg), ": %s", e->message);
    msg[strcspn(msg, "\n")] = 0;
    tb_setError("%s:%d: not well-formed XML%s", *file, e ? e->line : 0, msg);
  }
  xmlFreeParserCtxt(ctx);
  free(text);
  return doc;
}

//---- includes ----------------------------------------------------------------------------------

static int tb_mjIncludes(tbMj* c, xmlDocPtr doc, xmlNodePtr n, int depth);

static void tb_mjMark(xmlNodePtr n, char* file) {
  for (; n; n = n->next) {
    n->_private = file;
    if (n->type == XML_ELEMENT_NODE) tb_mjMark(n->children, file);
  }
}

// the path of an included file: as given when absolute, else beside the model file (MuJoCo's
// rule, for an include inside an included file too), kept in c->included; NULL when out of memory
static char* tb_mjIncludePath(tbMj* c, const char* file) {
  const char* slash = strrchr(c->file, '/');
  int dir = file[0] == '/' || !slash ? 0 : (int)(slash - c->file + 1);
  size_t n = (size_t)dir + strlen(file) + 1;
  char* path = (char*)malloc(n);
  char** list = (char**)realloc(c->included, sizeof(char*) * (size_t)(c->nincluded + 1));
  if (!path || !list) {
    free(path);
    if (list) c->included = list;
    return NULL;
  }
  c->included = list;
  snprintf(path, n, "%.*s%s", dir, c->file, file);
  return c->included[c->nincluded++] = path;
}

// <include file="..."/>: the file's top element's children in its place, each remembering its
// file for messages, and their own includes in turn
static int tb_mjInclude(tbMj* c, xmlDocPtr doc, xmlNodePtr inc, int depth) {
  xmlAttrPtr file = xmlHasProp(inc, (const xmlChar*)"file");
  if (!file || inc->properties->next || xmlFirstElementChild(inc)) {
    return tb_mjFail(c, inc, "an include takes file= alone");
  }
  if (depth >= 16) {
    return tb_mjFail(c, inc, "includes nested 16 deep: does a file include itself?");
  }
  char* path = tb_mjIncludePath(c, tb_mjValue(file));
  if (!path) return tb_mjFail(c, inc, "out of memory");
  const char* shown;
  xmlDocPtr sub = tb_mjRead(path, &shown);
  if (!sub) return tb_mjPrefix(tb_mjFileOf(c, inc), "include");
  if (sub->intSubset) {
    xmlFreeDoc(sub);
    return tb_mjFail(c, inc, "%s: a DTD (entities) is outside the subset", path);
  }
  // the copies held in a box of their own while their own includes are expanded
  xmlNodePtr box = xmlNewDocNode(doc, NULL, (const xmlChar*)"include", NULL);
  xmlNodePtr copy = box ? xmlDocCopyNodeList(doc, xmlDocGetRootElement(sub)->children) : NULL;
  xmlFreeDoc(sub);
  if (!box) return tb_mjFail(c, inc, "out of memory");
  xmlAddChildList(box, copy);
  tb_mjMark(box->children, path);
  int rc = tb_mjIncludes(c, doc, box, depth + 1);
  for (xmlNodePtr k = box->children; k && !rc;) {
    xmlNodePtr next = k->next;
    xmlUnlinkNode(k);
    xmlAddPrevSibling(inc, k);
    k = next;
  }
  xmlFreeNode(box);
  if (rc) return rc;
  xmlUnlinkNode(inc);
  xmlFreeNode(inc);
  return 0;
}

static int tb_mjIncludes(tbMj* c, xmlDocPtr doc, xmlNodePtr n, int depth) {
  for (xmlNodePtr k = n->children; k;) {
    xmlNodePtr next = k->next;
    if (k->type == XML_ELEMENT_NODE && tb_mjIs(k, "include")) {
      if (tb_mjInclude(c, doc, k, depth)) return 2;
    } else if (k->type == XML_ELEMENT_NODE && tb_mjIncludes(c, doc, k, depth)) {
      return 2;
    }
    k = next;
  }
  return 0;
}

// a reading into model m: the context's defaults (MuJoCo's)
static void tb_mjStart(tbMj* c, tbModel* m) {
  memset(c, 0, sizeof(*c));
  c->angle = TB_PI / 180.0;  // MuJoCo's default unit
  memcpy(c->seq, "xyz", 4);
  c->minimal = 1;  // joints as MuJoCo holds them, where they can be (tb_mjModelNumerics)
  c->m = m;
}

// MuJoCo's defaults: 2 ms, the pyramid (four facets for condim 3)
static void tb_mjModelDefaults(tbModel* m) {
  m->opt.timestep = 0.002;
  m->opt.cone = TB_CONE_PYRAMID;
  m->opt.facets = 4;
}

// file src read into c->m up to its parameters (the model not yet compiled); 0, or 2 with the
// error set
static int tb_mjReadInto(tbMj* c, const char* src) {
  if (!src) return tb_setError("MJCF: no file");
  c->body0 = c->nbody = c->m->nbody;  // a composed scene's unnamed bodies keep distinct names
  c->doc = tb_mjRead(src, &c->file);
  if (!c->doc) return 2;
  int rc = tb_mjIncludes(c, c->doc, xmlDocGetRootElement(c->doc), 0);
  if (!rc) rc = tb_mjSections(c, xmlDocGetRootElement(c->doc));
  if (!rc) rc = tb_mjParams(c);
  return rc;
}

static void tb_mjEnd(tbMj* c) {
  free(c->cls);
  free(c->qpos);
  free(c->qvel);
  free(c->numeric);
  free(c->numeric_used);
  free(c->named);
  free(c->frame);
  tb_mjFreeMeshes(c);
  free(c->actuator_used);
  free(c->merged);
  for (int i = 0; i < c->nincluded; i++) free(c->included[i]);
  free(c->included);
  xmlFreeDoc(c->doc);
}

tbModel* tb_loadMJCF(const char* src) {
  return tb_loadMJCFNoting(src, NULL, 0);
}

tbModel* tb_loadMJCFNoting(const char* src, char* note, size_t cap) {
  if (note && cap) note[0] = 0;
  tbModel* m = tb_newModel();
  if (!m) {
    tb_setError("MJCF: out of memory");
    return NULL;
  }
  tb_mjModelDefaults(m);
  tbMj c;
  tb_mjStart(&c, m);
  int rc = tb_mjReadInto(&c, src);
  if (!rc && tb_compileModel(m)) rc = tb_mjPrefix(c.file, "model");
  if (!rc) rc = tb_mjCheckValues(&c);
  if (!rc) tb_mjMeshNote(&c);
  if (!rc && note && cap) snprintf(note, cap, "%s", c.note);
  tb_mjEnd(&c);
  if (rc) {
    tb_freeModel(m);
    return NULL;
  }
  return m;
}

//---- composed scenes ---------------------------------------------------------------------------

#define TB_MJ_MAXPARTS 8

// the files' notes as one line, each after its file's name
static void tb_mjComposeNote(const tbMj* c, int n, char* note, size_t cap) {
  size_t at = 0;
  for (int i = 0; i < n && at < cap; i++) {
    char world[96] = "";
    if (c[i].world_shapes) {
      snprintf(world, sizeof(world),
               "%s%d world shape%s (the composed scene's ground is its caller's)",
               c[i].note[0] ? "; " : "", c[i].world_shapes, c[i].world_shapes > 1 ? "s" : "");
    }
    // the caller's site is counted with the looks read past, but it is read: say so
    char site[TB_NAMELEN + 48] = "";
    if (c[i].part && c[i].part->site_found) {
      snprintf(site, sizeof(site), " (the site '%s' read for its frame)", c[i].part->site);
    }
    if (!c[i].note[0] && !world[0]) continue;
    at += (size_t)snprintf(note + at, cap - at, "%s%s: %s%s%s%s", at ? "; " : "", c[i].file,
                           c[i].note[0] || !world[0] ? "" : "read past ", c[i].note,
                           c[i].note[0] ? site : "", world);
  }
}

tbModel* tb_composeMJCF(tbMjcfPart* parts, int nparts, tbMjcfBuild build, void* ctx, char* note,
                        size_t cap) {
  if (note && cap) note[0] = 0;
  if (!parts || nparts < 1 || nparts > TB_MJ_MAXPARTS) {
    tb_setError("MJCF: a composed scene has 1 to %d files, not %d", TB_MJ_MAXPARTS, nparts);
    return NULL;
  }
  tbModel* m = tb_newModel();
  if (!m) {
    tb_setError("MJCF: out of memory");
    return NULL;
  }
  tb_mjModelDefaults(m);
  tbMj c[TB_MJ_MAXPARTS];
  int rc = 0, n = 0;
  for (; n < nparts && !rc; n++) {
    tbMjcfPart* p = &parts[n];
    tbOption first = m->opt;  // the first file's options stay
    int g0 = m->ngeom, j0 = m->njnt;
    tb_mjStart(&c[n], m);
    c[n].compose = n ? 2 : 1;
    c[n].part = p;
    p->site_found = 0;
    p->nactuator = 0;
    rc = tb_mjReadInto(&c[n], p->src);
    if (n) m->opt = first;
    p->body0 = c[n].body0;
    p->nbody = m->nbody - p->body0;
    p->geom0 = g0;
    p->ngeom = m->ngeom - g0;
    p->jnt0 = j0;
    p->njnt = m->njnt - j0;
    p->world_shapes = c[n].world_shapes;
  }
  if (!rc && build) rc = build(m, parts, nparts, ctx);
  if (!rc && tb_compileModel(m)) rc = tb_mjPrefix(c[0].file, "composed model");
  for (int i = 0; i < n && !rc; i++) rc = tb_mjCheckValues(&c[i]);
  for (int i = 0; i < n && !rc; i++) tb_mjMeshNote(&c[i]);
  if (!rc && note && cap) tb_mjComposeNote(c, n, note, cap);
  for (int i = 0; i < n; i++) tb_mjEnd(&c[i]);
  if (rc) {
    tb_freeModel(m);
    return NULL;
  }
  return m;
}
