// tumble's Python module (nanobind): models, batches and their rollouts, and the jobs, over the
// C API. Arrays out are NumPy arrays that own the engine's buffers (the records are written in
// place, no copy); long calls release the GIL and check for Ctrl-C between chunks of scenes.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>
#include <omp.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tumble/estimate.h>
#include <tumble/grasp.h>
#include <tumble/grasp3d.h>
#include <tumble/mjcf.h>
#include <tumble/optimize.h>
#include <tumble/plate.h>
#include <tumble/scenes.h>
#include <tumble/sweep.h>
#include <tumble/tumble.h>

#include "util/error.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// the engine's errors: tumble.Error (a ValueError) with its message
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void Check(int rc) {
  if (rc != TB_OK) throw Error(tb_lastError());
}

template <class T>
using Array = nb::ndarray<nb::numpy, T>;

// a dict from (key, value) pairs
nb::dict Dict(std::initializer_list<std::pair<const char*, nb::object>> items) {
  nb::dict d;
  for (const auto& [k, v] : items) d[k] = v;
  return d;
}

// a NumPy array of shape that owns a new buffer
template <class T>
Array<T> NewArray(std::vector<size_t> shape) {
  size_t n = 1;
  for (size_t s : shape) n *= s;
  T* buf = new T[n > 0 ? n : 1]();
  nb::capsule owner(buf, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  return Array<T>(buf, shape.size(), shape.data(), owner);
}

// a batch's settings (tbRunSettings) from the keyword arguments
tbRunSettings RunSettings(const std::string& device, const std::string& precision) {
  tbRunSettings r = tb_defaultRunSettings();
  r.precision = precision == "fp64" ? TB_FP64 : precision == "fp32" ? TB_FP32 : -1;
  if (r.precision < 0) throw Error("precision '" + precision + "': expected fp64 or fp32");
  r.device = device == "cpu"    ? TB_DEVICE_CPU
             : device == "gpu"  ? TB_DEVICE_GPU
             : device == "auto" ? TB_DEVICE_AUTO
                                : -1;
  if (r.device < 0) throw Error("device '" + device + "': expected auto, cpu or gpu");
  return r;
}

// a job's device (its definition's, which its batches take)
int JobDevice(const std::string& device) {
  return RunSettings(device, "fp64").device;
}

// the thread count of one call, restored afterwards
struct ThreadScope {
  int threads0;
  explicit ThreadScope(int threads) {
    if (threads < 0) throw Error("threads " + std::to_string(threads) + ": must be >= 0");
    threads0 = omp_get_max_threads();
    if (threads > 0) omp_set_num_threads(threads);
  }
  ~ThreadScope() { omp_set_num_threads(threads0); }
};

// Ctrl-C between pieces of a long call: the GIL is taken back to ask
void CheckSignals() {
  nb::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
}

struct Model {
  tbModel* m = nullptr;
  std::string name;
  std::string read_past;  // what its MJCF file held that tumble read past (tb_loadMJCFNoting)
  ~Model() { tb_freeModel(m); }
};
using ModelPtr = std::shared_ptr<Model>;

ModelPtr Builtin(const std::string& name, const nb::dict& options, const std::string& cone,
                 int facets, bool align) {
  int i = tb_findScene(name.c_str());
  if (i < 0) throw Error("unknown scene '" + name + "' (tumble.scenes())");
  const tbSceneInfo* si = tb_sceneInfo(i);
  tbBuild b = tb_defaultBuild(i);
  if (cone != "exact" && cone != "pyramid") throw Error("cone '" + cone + "': exact or pyramid");
  b.cone = cone == "exact" ? TB_CONE_EXACT : TB_CONE_PYRAMID;
  b.facets = facets;
  b.facet_align = align;
  for (auto [key, value] : options) {
    std::string k = nb::cast<std::string>(key);
    int found = -1;
    for (int o = 0; o < si->nopt; o++) found = k == si->opt[o].name ? o : found;
    if (found < 0) throw Error("scene '" + name + "' has no option '" + k + "'");
    b.opt[found] = nb::cast<double>(value);
  }
  auto model = std::make_shared<Model>();
  model->m = tb_buildScene(i, &b);
  if (!model->m) throw Error(tb_lastError());
  model->name = name;
  return model;
}

ModelPtr FromMjcf(const std::string& src) {
  auto model = std::make_shared<Model>();
  char note[512];
  model->m = tb_loadMJCFNoting(src.c_str(), note, sizeof(note));
  if (!model->m) throw Error(tb_lastError());
  model->read_past = note;
  if (note[0] && PyErr_WarnEx(PyExc_UserWarning, note, 1) != 0) throw nb::python_error();
  std::string base = src.substr(src.find_last_of('/') + 1);
  model->name = src.find('<') == std::string::npos ? base.substr(0, base.rfind(".xml")) : "mjcf";
  return model;
}

nb::list Params(const Model& mo) {
  nb::list out;
  for (int p = 0; p < mo.m->nparam; p++) {
    const tbParam* q = &mo.m->param[p];
    out.append(Dict({{"name", nb::cast(q->name)},
                     {"unit", nb::cast(q->unit)},
                     {"doc", nb::cast(q->doc)},
                     {"default", nb::cast(q->value)},
                     {"lo", nb::cast(q->lo)},
                     {"hi", nb::cast(q->hi)},
                     {"lo_open", nb::cast((bool)q->lo_open)}}));
  }
  return out;
}

std::vector<std::string> Bodies(const Model& mo) {
  std::vector<std::string> out;
  for (int b = 0; b < mo.m->nbody; b++) out.push_back(mo.m->body_name[b]);
  return out;
}

// a batch of scenes of one model, each with its parameter values
struct Batch {
  ModelPtr model;
  tbData* d = nullptr;
  ~Batch() { tb_freeData(d); }
};

// one parameter's values: a number, a spec string (V, LO:HI, uniform:LO:HI, as --param) or an
// array of one value per scene
void SetParam(const Model& mo, tbData* d, const std::string& name, nb::handle value,
              uint64_t seed) {
  int p = tb_findParam(mo.m, name.c_str());
  if (p < 0) throw Error("model '" + mo.name + "' has no parameter '" + name + "'");
  int n = d->nscene, np = mo.m->nparam;
  if (nb::isinstance<nb::str>(value)) {
    tbParamSpec spec;
    Check(tb_parseParamSpec(name.c_str(), nb::cast<std::string>(value).c_str(), &spec));
    for (int s = 0; s < n; s++)
      d->param[(size_t)s * np + p] = tb_paramSpecValue(&spec, p, s, n, seed);
    return;
  }
  if (nb::isinstance<nb::float_>(value) || nb::isinstance<nb::int_>(value)) {
    double v = nb::cast<double>(value);
    for (int s = 0; s < n; s++) d->param[(size_t)s * np + p] = v;
    return;
  }
  // any sequence of numbers, as float64
  nb::object arr;
  try {
    arr = nb::module_::import_("numpy").attr("ascontiguousarray")(value, "dtype"_a = "float64");
  } catch (const nb::python_error&) {
    throw Error("parameter '" + name + "': a number, a spec string or " + std::to_string(n) +
                " numbers");
  }
  auto a = nb::cast<nb::ndarray<const double, nb::c_contig, nb::device::cpu>>(arr);
  if (a.ndim() != 1) throw Error("parameter '" + name + "': a one-dimensional array");
  if ((long)a.shape(0) != n) {
    throw Error("parameter '" + name + "': " + std::to_string(a.shape(0)) + " values for " +
                std::to_string(n) + " scenes");
  }
  for (int s = 0; s < n; s++) d->param[(size_t)s * np + p] = a.data()[s];
}

std::shared_ptr<Batch> NewBatch(const ModelPtr& model, long n, const nb::dict& params, long seed) {
  if (n < 1 || n > 1000000000L) throw Error("n " + std::to_string(n) + ": must be in [1, 1e9]");
  if (seed < 0) throw Error("seed " + std::to_string(seed) + ": must be >= 0");
  auto b = std::make_shared<Batch>();
  b->model = model;
  b->d = tb_newData(model->m, (int)n);
  if (!b->d) throw Error(tb_lastError());
  for (auto [key, value] : params) {
    SetParam(*model, b->d, nb::cast<std::string>(key), value, (uint64_t)seed);
  }
  Check(tb_checkParams(model->m, b->d));
  Check(tb_resetData(model->m, b->d));
  return b;
}

// the scenes' per-scene arrays as NumPy copies
nb::dict SceneStats(const tbData* d) {
  size_t n = (size_t)d->nscene;
  auto status = NewArray<int32_t>({n}), ncon = NewArray<int32_t>({n}),
       fail = NewArray<int32_t>({n});
  auto iters = NewArray<int64_t>({n}), steps = NewArray<int64_t>({n});
  auto rlast = NewArray<double>({n}), rmax = NewArray<double>({n}), t = NewArray<double>({n});
  for (size_t s = 0; s < n; s++) {
    status.data()[s] = d->status[s];
    ncon.data()[s] = d->ncon[s];
    fail.data()[s] = d->fail_step[s];
    iters.data()[s] = d->iter_sum[s];
    steps.data()[s] = d->nstep[s];
    rlast.data()[s] = d->resid_last[s];
    rmax.data()[s] = d->resid_max[s];
    t.data()[s] = d->time[s];
  }
  return Dict({{"status", nb::cast(status)},
               {"contacts", nb::cast(ncon)},
               {"fail_step", nb::cast(fail)},
               {"iterations", nb::cast(iters)},
               {"steps", nb::cast(steps)},
               {"last_residual", nb::cast(rlast)},
               {"max_residual", nb::cast(rmax)},
               {"time", nb::cast(t)}});
}

// the batch's current body state: pos (n, nbody, 3), quat (n, nbody, 4), vel (n, nbody, 6)
nb::dict State(const Batch& b) {
  size_t n = (size_t)b.d->nscene, nb_ = (size_t)b.model->m->nbody;
  auto pos = NewArray<double>({n, nb_, 3}), quat = NewArray<double>({n, nb_, 4}),
       vel = NewArray<double>({n, nb_, 6});
  std::memcpy(pos.data(), b.d->body_pos, sizeof(double) * n * nb_ * 3);
  std::memcpy(quat.data(), b.d->body_quat, sizeof(double) * n * nb_ * 4);
  std::memcpy(vel.data(), b.d->body_vel, sizeof(double) * n * nb_ * 6);
  return Dict({{"pos", nb::cast(pos)}, {"quat", nb::cast(quat)}, {"vel", nb::cast(vel)}});
}

// steps of every scene, recorded every record_every steps (0: the first and the last); the
// record is written by the engine into the returned arrays
nb::dict Rollout(Batch& b, long steps, long every, long chunk, const std::string& device,
                 int threads, const std::string& precision) {
  if (steps < 0 || steps > 1000000000L) throw Error("steps: must be in [0, 1e9]");
  if (every < 0) throw Error("record_every: must be >= 0");
  if (chunk < 0) throw Error("chunk: must be >= 0");
  const tbModel* m = b.model->m;
  size_t n = (size_t)b.d->nscene, nbody = (size_t)m->nbody;
  int nrec = tb_recordCount((int)steps, (int)every);
  auto state = NewArray<double>({n, (size_t)nrec, nbody, 13});
  auto time = NewArray<double>({n, (size_t)nrec});
  auto step = NewArray<int32_t>({(size_t)nrec});
  tbRecord rec = {(int)every, nrec, state.data(), time.data(), step.data()};
  b.d->run = RunSettings(device, precision);  // this batch's alone
  {
    ThreadScope scope(threads);
    nb::gil_scoped_release nogil;
    // pieces of the batch, so that Ctrl-C is seen; the results do not depend on the split
    long piece = chunk > 0 ? chunk : (long)std::max<size_t>(1, (n + 15) / 16);
    for (long s0 = 0; s0 < (long)n; s0 += piece) {
      long s1 = std::min<long>((long)n, s0 + piece);
      Check(tb_rollout(m, b.d, (int)s0, (int)s1, (int)steps, &rec));
      CheckSignals();
    }
  }
  tb_recordSteps((int)steps, &rec);
  nb::dict out = SceneStats(b.d);
  out["state"] = state;
  out["record_time"] = time;
  out["record_step"] = step;
  return out;
}

//---- jobs --------------------------------------------------------------------------------------

// the per-cell table of a grasp tally (x fastest, m), as the map CSV has it
nb::dict CellTable(const tbSweepGrid& g, const tbSweepTally& t) {
  size_t nc = (size_t)t.ncell;
  auto x = NewArray<double>({nc}), y = NewArray<double>({nc}), p = NewArray<double>({nc}),
       lo = NewArray<double>({nc}), hi = NewArray<double>({nc});
  auto succ = NewArray<int64_t>({nc}), valid = NewArray<int64_t>({nc}),
       failed = NewArray<int64_t>({nc});
  tb_tallyProbability(&t, p.data());
  for (int c = 0; c < t.ncell; c++) {
    double xy[2];
    tb_sweepOffset(&g, c, xy);
    x.data()[c] = xy[0];
    y.data()[c] = xy[1];
    tb_wilson(t.success[c], t.valid[c], &lo.data()[c], &hi.data()[c]);
    succ.data()[c] = t.success[c];
    valid.data()[c] = t.valid[c];
    failed.data()[c] = t.failed[c];
  }
  return Dict({{"x", nb::cast(x)},
               {"y", nb::cast(y)},
               {"trials", nb::cast(valid)},
               {"successes", nb::cast(succ)},
               {"failed", nb::cast(failed)},
               {"p", nb::cast(p)},
               {"lo95", nb::cast(lo)},
               {"hi95", nb::cast(hi)}});
}

// the 3D grasp study on a gripper file and a part file (tumble grasp3d --gripper --object): the
// cells' table, the struck and unconverged trials and what the files held that was read past
nb::dict Grasp3dFiles(const std::string& gripper, const std::string& part, std::pair<int, int> grid,
                      std::pair<double, double> extent, long trials, long seed,
                      std::pair<double, double> mass, std::pair<double, double> mu,
                      double pos_noise, double yaw_noise, const std::string& tcp,
                      double grasp_height, std::vector<double> open, std::vector<double> close,
                      double close_time, double disturb, double slip, double hold, double dt,
                      std::vector<double> candidates, const std::string& device, int threads) {
  tbGrasp3dDef d = tb_defaultGrasp3dDef();
  d.device = JobDevice(device);
  d.gripper = gripper.c_str();
  d.part = part.c_str();
  d.tcp = tcp.c_str();
  d.grid.nx = grid.first;
  d.grid.ny = grid.second;
  d.grid.extent_x = extent.first;
  d.grid.extent_y = extent.second;
  if (trials < 1 || trials > INT_MAX || seed < 0) throw Error("trials >= 1 and seed >= 0");
  d.trials = (int)trials;
  d.seed = (uint64_t)seed;
  d.mass_lo = mass.first;
  d.mass_hi = mass.second;
  d.mu_lo = mu.first;
  d.mu_hi = mu.second;
  d.pos_noise = pos_noise;
  d.yaw_noise = yaw_noise;
  d.grasp_height = grasp_height;
  if (open.size() != close.size() || open.size() > TB_G3_MAXACT) {
    throw Error("open and close: one control each per actuator (at most 8)");
  }
  d.nctrl = (int)open.size();
  std::copy(open.begin(), open.end(), d.ctrl_open);
  std::copy(close.begin(), close.end(), d.ctrl_close);
  d.close_time = close_time;
  d.disturb = disturb;
  d.slip = slip;
  d.hold = hold;
  d.dt = dt;
  if (candidates.size() % 3) throw Error("candidates: rows of x, y (m) and yaw (rad)");
  d.ncand = (int)std::min<size_t>(candidates.size() / 3, (size_t)INT_MAX);
  d.cand = candidates.data();
  Check(tb_checkGrasp3dDef(&d));
  tbGrasp3dInfo info;
  char note[1024];
  std::unique_ptr<tbModel, void (*)(tbModel*)> m(tb_loadGrasp3d(&d, &info, note, sizeof(note)),
                                                 tb_freeModel);
  if (!m) throw Error(tb_lastError());
  d.user_model = m.get();
  d.user_info = &info;
  int ncell = tb_grasp3dCells(&d);
  tbSweepTally t;
  Check(tb_newTally(&t, ncell));
  std::unique_ptr<tbSweepTally, void (*)(tbSweepTally*)> keep(&t, tb_freeTally);
  long struck = 0, unconverged = 0;
  {
    ThreadScope scope(threads);
    nb::gil_scoped_release nogil;
    // pieces of the study, so that Ctrl-C is seen between them; the scenes are independent, so
    // the counts do not depend on the split
    long total = (long)ncell * d.trials, piece = 64L * omp_get_max_threads();
    for (d.begin = 0; d.begin < total; d.begin += piece) {
      d.end = std::min(total, d.begin + piece);
      tbGrasp3dResult r;
      Check(tb_grasp3dSweep(&d, &r));
      for (int c = 0; c < ncell; c++) {
        t.success[c] += r.tally.success[c];
        t.valid[c] += r.tally.valid[c];
        t.failed[c] += r.tally.failed[c];
      }
      struck += r.struck;
      unconverged += r.unconverged;
      tb_freeGrasp3dResult(&r);
      CheckSignals();
    }
  }
  nb::dict out = CellTable(d.grid, t);
  if (d.ncand > 0) {  // the candidates' own poses, not the grid's offsets
    auto x = NewArray<double>({(size_t)d.ncand}), y = NewArray<double>({(size_t)d.ncand}),
         yaw = NewArray<double>({(size_t)d.ncand});
    for (int c = 0; c < d.ncand; c++) {
      x.data()[c] = d.cand[3 * c];
      y.data()[c] = d.cand[3 * c + 1];
      yaw.data()[c] = d.cand[3 * c + 2] * 180.0 / M_PI;
    }
    out["x"] = nb::cast(x);
    out["y"] = nb::cast(y);
    out["yaw"] = nb::cast(yaw);
  } else {
    out["shape"] = nb::make_tuple(d.grid.ny, d.grid.nx);
  }
  out["struck"] = struck;
  out["unconverged"] = unconverged;
  out["steps_per_trial"] = info.nstep;
  out["read_past"] = std::string(note);
  return out;
}

int MuRange(const std::string& name) {
  int r = tb_findMuRange(name.c_str());
  if (r < 0) throw Error("friction '" + name + "': expected low, medium or high");
  return r;
}

// one grasp condition over a grid (tumble grasp's defaults): per-cell counts and Wilson
// intervals, as the map CSV has them
nb::dict Grasp(std::pair<int, int> grid, double extent, std::pair<double, double> center,
               long trials, long seed, const std::string& surface_mu, const std::string& gripper_mu,
               const std::string& speed, long chunk, const std::string& device, int threads) {
  tbGraspDef def = tb_defaultGraspDef();
  def.device = JobDevice(device);
  if (speed != "normal" && speed != "fast") throw Error("speed '" + speed + "': normal or fast");
  def.speed *= speed == "fast" ? 2.0 : 1.0;
  tb_muRange(MuRange(surface_mu), def.mu_surface);
  tb_muRange(MuRange(gripper_mu), def.mu_gripper);
  Check(tb_checkGraspDef(&def));
  if (grid.first < 1 || grid.second < 1 || grid.first > 4096 || grid.second > 4096)
    throw Error("grid: each side in [1, 4096]");
  if (!(extent >= 0.0)) throw Error("extent: must be >= 0");
  if (trials < 1 || trials > 1000000000L) throw Error("trials: must be >= 1");
  if (seed < 0 || chunk < 1) throw Error("seed must be >= 0 and chunk >= 1");
  tbSweepGrid g = {grid.first, grid.second, extent, extent, center.first, center.second};
  int ncell = g.nx * g.ny;
  tbSweepTally t;
  Check(tb_newTally(&t, ncell));
  std::unique_ptr<tbSweepTally, void (*)(tbSweepTally*)> hold(&t, tb_freeTally);
  tbGraspRun run;
  {
    ThreadScope scope(threads);
    nb::gil_scoped_release nogil;
    long total = (long)ncell * trials, piece = std::max<long>(chunk, 1) * 8;
    for (long s0 = 0; s0 < total; s0 += piece) {
      tbGraspRun part;
      Check(tb_graspSweepRange(&def, &g, (int)trials, (uint64_t)seed, s0,
                               std::min(total, s0 + piece), (int)chunk, nullptr, nullptr, &t,
                               &part));
      if (s0 == 0) {
        run = part;
      } else {
        run.trials += part.trials;
        run.failed += part.failed;
        run.unconverged += part.unconverged;
        run.resid_max = std::max(run.resid_max, part.resid_max);
        run.seconds += part.seconds;
        run.scene_steps += part.scene_steps;
      }
      CheckSignals();
    }
  }
  nb::dict out = CellTable(g, t);
  out["shape"] = nb::make_tuple(g.ny, g.nx);
  out["scenes"] = run.trials;
  out["failed_scenes"] = run.failed;
  out["unconverged_scenes"] = run.unconverged;
  out["max_residual"] = run.resid_max;
  out["seconds"] = run.seconds;
  return out;
}

// the velocity field of a named plate motion over a grid of starts (tumble plate field)
nb::dict PlateField(const std::string& motion, std::pair<int, int> grid, double extent,
                    double seconds, double dt, double mu, const std::string& part,
                    const nb::dict& params, const std::string& device, int threads) {
  int mi = tb_findPlateMotion(motion.c_str());
  if (mi < 0) throw Error("motion '" + motion + "': unknown (tumble.plate_motions())");
  tbFieldOpt o = tb_defaultFieldOpt();
  o.device = JobDevice(device);
  o.nx = grid.first;
  o.ny = grid.second;
  o.extent = extent;
  o.seconds = seconds;
  if (dt > 0) o.dt = dt;
  if (mu >= 0) o.mu = mu;
  if (part != "particle" && part != "box") throw Error("part '" + part + "': particle or box");
  o.box = part == "box";
  std::vector<std::string> names;
  for (auto [key, value] : params) {
    if (o.nset == TB_FIELD_MAXSET) throw Error("too many params");
    names.push_back(nb::cast<std::string>(key));
    o.set_value[o.nset++] = nb::cast<double>(value);
  }
  for (int k = 0; k < o.nset; k++) o.set_name[k] = names[k].c_str();
  tbFieldResult r;
  std::memset(&r, 0, sizeof(r));
  int rc;
  {
    ThreadScope scope(threads);
    nb::gil_scoped_release nogil;
    rc = tb_plateField(tb_plateMotion(mi), &o, &r);
  }
  std::unique_ptr<tbFieldResult, void (*)(tbFieldResult*)> hold(&r, tb_freeFieldResult);
  Check(rc);
  size_t n = (size_t)r.n;
  std::vector<Array<double>> cols;
  const char* keys[9] = {"x0", "y0", "mean_x", "mean_y", "vx", "vy", "speed", "stick", "separated"};
  nb::dict out;
  for (int k = 0; k < 9; k++) {
    auto a = NewArray<double>({n});
    for (size_t i = 0; i < n; i++) {
      const tbFieldPoint* q = &r.pt[i];
      const double v[9] = {q->x0, q->y0,    q->mean_x, q->mean_y,   q->vx,
                           q->vy, q->speed, q->stick,  q->separated};
      a.data()[i] = v[k];
    }
    out[keys[k]] = a;
  }
  auto status = NewArray<int32_t>({n});
  for (size_t i = 0; i < n; i++) status.data()[i] = r.pt[i].status;
  out["status"] = status;
  out["shape"] = nb::make_tuple(o.ny, o.nx);
  out["steps"] = r.nstep;
  out["periods"] = r.periods;
  out["window"] = r.window;
  out["failed"] = r.failed;
  return out;
}

// a (kind, a, b) tuple: ("uniform", lo, hi) or ("gauss", mean, sd)
tbPrior PriorOf(const std::string& name, nb::handle h) {
  auto t = nb::cast<nb::tuple>(h);
  if (t.size() != 3)
    throw Error("prior " + name + ": expected (\"uniform\", lo, hi) or (\"gauss\", mean, sd)");
  std::string kind = nb::cast<std::string>(t[0]);
  tbPrior pr = {0, nb::cast<double>(t[1]), nb::cast<double>(t[2])};
  if (kind == "uniform" && pr.a < pr.b) pr.kind = TB_PRIOR_UNIFORM;
  if (kind == "gauss" && pr.b > 0.0) pr.kind = TB_PRIOR_GAUSS;
  if (!pr.kind) throw Error("prior " + name + ": uniform needs lo < hi, gauss sd > 0");
  return pr;
}

// the particle filter over observations in a CSV (tumble estimate pf): the posterior of each
// estimated parameter after every observation; the filter's own numbers per row
nb::dict EstimatePF(const ModelPtr& model, const std::string& obs_path, const nb::dict& priors,
                    std::pair<std::string, double> noise, long particles, const nb::dict& params,
                    long seed, double delta, bool replay, long max_stage, const std::string& device,
                    int threads) {
  const tbModel* m = model->m;
  Batch one;  // the fixed parameters: defaults, then params
  one.model = model;
  one.d = tb_newData(m, 1);
  if (!one.d) throw Error(tb_lastError());
  for (auto [k, v] : params) SetParam(*model, one.d, nb::cast<std::string>(k), v, 0);
  Check(tb_checkParams(m, one.d));
  std::vector<int> idx;
  std::vector<tbPrior> prior;
  std::vector<std::string> names;
  for (auto [k, v] : priors) {
    names.push_back(nb::cast<std::string>(k));
    int p = tb_findParam(m, names.back().c_str());
    if (p < 0) throw Error("model '" + model->name + "' has no parameter '" + names.back() + "'");
    idx.push_back(p);
    prior.push_back(PriorOf(names.back(), v));
  }
  if (idx.empty()) throw Error("priors: give at least one parameter to estimate");
  tbPFOpt o = tb_defaultPFOpt();
  o.device = JobDevice(device);
  if (noise.first != "uniform" && noise.first != "gauss")
    throw Error("noise: (\"uniform\", eps) or (\"gauss\", sigma)");
  o.noise.kind = noise.first == "uniform" ? TB_NOISE_UNIFORM : TB_NOISE_GAUSS;
  o.noise.scale = noise.second;
  if (!(o.noise.scale > 0.0)) throw Error("noise: the scale must be > 0");
  if (particles < 1 || particles > 100000000L) throw Error("particles: must be >= 1");
  if (seed < 0 || max_stage < 1) throw Error("seed must be >= 0 and max_stage >= 1");
  o.nparticle = (int)particles;
  o.nest = (int)idx.size();
  o.param = idx.data();
  o.prior = prior.data();
  o.seed = (uint64_t)seed;
  o.delta = delta;
  o.replay = replay;
  o.max_stage = (int)max_stage;
  // the step the observations are read at: the batch's time step parameter, else the model's
  int pdt = tb_findParam(m, "dt");
  if (pdt < 0) pdt = tb_findParam(m, "opt.timestep");
  double dt = pdt >= 0 ? one.d->param[pdt] : m->opt.timestep;
  tbObs obs;
  Check(tb_readObs(obs_path.c_str(), m, dt, &obs));
  std::unique_ptr<tbObs, void (*)(tbObs*)> hold_obs(&obs, tb_freeObs);
  tbPFResult r;
  std::memset(&r, 0, sizeof(r));
  std::unique_ptr<tbPFResult, void (*)(tbPFResult*)> hold(&r, tb_freePFResult);
  // Ctrl-C: seen at the filter's checkpoints, between observations
  o.checkpoint = [](void*, int, int, const char*, size_t) -> int {
    nb::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
  };
  o.checkpoint_seconds = 0.25;
  int rc;
  {
    ThreadScope scope(threads);
    nb::gil_scoped_release nogil;
    rc = tb_particleFilter(m, one.d->param, &obs, &o, &r);
  }
  if (PyErr_Occurred()) throw nb::python_error();
  Check(rc);
  size_t nrow = (size_t)r.nrow, ne = (size_t)r.nest;
  nb::dict out;
  const char* stats[5] = {"mean", "std", "q05", "q50", "q95"};
  const double* src[5] = {r.mean, r.std, r.q05, r.q50, r.q95};
  for (int k = 0; k < 5; k++) {
    auto a = NewArray<double>({nrow, ne});
    std::memcpy(a.data(), src[k], sizeof(double) * nrow * ne);
    out[stats[k]] = a;
  }
  auto t = NewArray<double>({nrow}), ess = NewArray<double>({nrow});
  for (size_t i = 0; i < nrow; i++) {
    t.data()[i] = obs.t[i];
    ess.data()[i] = r.ess[i];
  }
  out["t"] = t;
  out["ess"] = ess;
  out["params"] = names;
  out["resamples"] = r.resamples;
  out["zero_weight"] = r.zero_events;
  out["inexact"] = r.inexact;
  out["failed"] = nrow ? r.failed[nrow - 1] : 0;
  out["particle_steps"] = r.filter_steps;
  out["seconds"] = r.seconds;
  return out;
}

// Levenberg-Marquardt on the observations (tumble estimate fit): the estimated parameters
// (names, in order; init values where given, else the batch's), within bounds (each parameter's
// range unless given), with the initial state of the observed coordinates too when fit_state
nb::dict EstimateFit(const ModelPtr& model, const std::string& obs_path,
                     const std::vector<std::string>& names_in, const nb::dict& init,
                     const nb::dict& bounds, bool fit_state, long scan, long max_iter,
                     const nb::dict& params, const std::string& device, int threads) {
  const tbModel* m = model->m;
  Batch one;
  one.model = model;
  one.d = tb_newData(m, 1);
  if (!one.d) throw Error(tb_lastError());
  for (auto [k, v] : params) SetParam(*model, one.d, nb::cast<std::string>(k), v, 0);
  Check(tb_checkParams(m, one.d));
  const double* param0 = one.d->param;
  int pdt = tb_findParam(m, "dt");
  if (pdt < 0) pdt = tb_findParam(m, "opt.timestep");
  tbObs obs;
  Check(tb_readObs(obs_path.c_str(), m, pdt >= 0 ? param0[pdt] : m->opt.timestep, &obs));
  std::unique_ptr<tbObs, void (*)(tbObs*)> hold_obs(&obs, tb_freeObs);
  std::vector<std::string> names = names_in;
  std::vector<int> idx, scanned;
  std::vector<double> x0;
  for (const auto& nm : names) {
    int p = tb_findParam(m, nm.c_str());
    if (p < 0) throw Error("model '" + model->name + "' has no parameter '" + nm + "'");
    idx.push_back(p);
    x0.push_back(param0[p]);
    scanned.push_back(1);
  }
  if (fit_state) {  // the observed coordinates' initial values, not scanned
    std::vector<int> sidx(TB_MAXOBSCOORD);
    std::vector<double> sinit(TB_MAXOBSCOORD);
    int ns = tb_stateParams(m, param0, &obs, sidx.data(), sinit.data(), TB_MAXOBSCOORD);
    if (ns == 0) throw Error("fit_state: no initial-state parameter of an observed coordinate");
    for (int k = 0; k < ns && k < TB_MAXOBSCOORD; k++) {
      if (std::find(idx.begin(), idx.end(), sidx[k]) != idx.end()) continue;
      idx.push_back(sidx[k]);
      x0.push_back(sinit[k]);
      scanned.push_back(0);
      names.push_back(m->param[sidx[k]].name);
    }
  }
  if (idx.empty()) throw Error("params: give at least one parameter to estimate");
  size_t n = idx.size();
  std::vector<double> lo(n), hi(n);
  for (size_t k = 0; k < n; k++) {
    const tbParam* q = &m->param[idx[k]];
    lo[k] = q->lo;
    hi[k] = q->hi;
    if (bounds.contains(names[k].c_str())) {
      auto b = nb::cast<std::pair<double, double>>(bounds[names[k].c_str()]);
      if (!(b.first >= q->lo && b.second <= q->hi && b.first <= b.second))
        throw Error("bounds " + names[k] + ": outside its range or empty");
      lo[k] = b.first;
      hi[k] = b.second;
    }
    if (init.contains(names[k].c_str())) x0[k] = nb::cast<double>(init[names[k].c_str()]);
    if (!(x0[k] >= lo[k] && x0[k] <= hi[k]) || (q->lo_open && !(x0[k] > q->lo)))
      throw Error("init " + names[k] + "=" + std::to_string(x0[k]) + ": outside its bounds");
  }
  for (auto [k, v] : bounds) {
    if (std::find(names.begin(), names.end(), nb::cast<std::string>(k)) == names.end())
      throw Error("bounds " + nb::cast<std::string>(k) + ": not an estimated parameter");
  }
  if ((long)obs.nrow * obs.ncol <= (long)n)
    throw Error("observations: fewer residuals than parameters");
  if (scan < 0 || max_iter < 1) throw Error("scan must be >= 0 and max_iter >= 1");
  tbFitOpt o = tb_defaultFitOpt();
  o.device = JobDevice(device);
  o.nest = (int)n;
  o.param = idx.data();
  o.init = x0.data();
  o.lo = lo.data();
  o.hi = hi.data();
  o.scan = scanned.data();
  o.nscan = (int)scan;
  o.max_iter = (int)max_iter;
  // Ctrl-C: seen before each batch of rollouts
  o.memo = [](void*, const double*, size_t, double*, size_t, int keep) -> int {
    if (keep) return 0;
    nb::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() == 0) return 0;
    tb_setError("interrupted");
    return -1;
  };
  tbFitResult r;
  std::memset(&r, 0, sizeof(r));
  std::unique_ptr<tbFitResult, void (*)(tbFitResult*)> hold(&r, tb_freeFitResult);
  int rc;
  {
    ThreadScope scope(threads);
    nb::gil_scoped_release nogil;
    rc = tb_fitLM(m, param0, &obs, &o, &r);
  }
  if (PyErr_Occurred()) throw nb::python_error();
  Check(rc);
  auto x = NewArray<double>({n}), se = NewArray<double>({n});
  std::memcpy(x.data(), r.x, sizeof(double) * n);
  std::memcpy(se.data(), r.se, sizeof(double) * n);
  return Dict({{"params", nb::cast(names)},
               {"x", nb::cast(x)},
               {"se", nb::cast(se)},
               {"rss", nb::cast(r.rss)},
               {"residuals", nb::cast(r.m)},
               {"iterations", nb::cast(r.iterations)},
               {"batches", nb::cast(r.batches)},
               {"reason", nb::cast(std::string(r.reason))},
               {"seconds", nb::cast(r.seconds)}});
}

// the plate objective, stopped (a nonzero return) once Ctrl-C was seen; no exception may cross
// the optimizers' C frames
struct PlateRun {
  tbPlateObj* ob;
  bool interrupted = false;
};

int PlateRunObjective(void* ctx, int n, const double* x, double* f) {
  auto* run = static_cast<PlateRun*>(ctx);
  return run->interrupted ? 1 : tb_plateObjective(run->ob, n, x, f);
}

void PlateRunProgress(void* ctx, int, int, double, double) {
  nb::gil_scoped_acquire gil;
  if (PyErr_CheckSignals() != 0) static_cast<PlateRun*>(ctx)->interrupted = true;
}

// a plate motion whose field does what the target asks (tumble plate optimize): the thesis'
// trajectory objective searched by Nelder-Mead, CMA-ES or both from the target's start; the
// best motion's A1..A6, C1..C6 and each optimizer's best value and counts
nb::dict PlateOptimize(nb::handle target, const std::string& optimizer, int starts, long evals,
                       double budget, double dt, double horizon, double mu,
                       const std::string& device, int threads) {
  int kind = TB_PLATE_TARGET_TABLE;
  std::vector<double> table;
  if (nb::isinstance<nb::str>(target)) {
    std::string t = nb::cast<std::string>(target);
    if (t != "circle" && t != "saddle") throw Error("target '" + t + "': circle, saddle or rows");
    kind = t == "circle" ? TB_PLATE_TARGET_CIRCLE : TB_PLATE_TARGET_SADDLE;
  } else {
    nb::object arr =
        nb::module_::import_("numpy").attr("ascontiguousarray")(target, "dtype"_a = "float64");
    auto a = nb::cast<nb::ndarray<const double, nb::c_contig, nb::device::cpu>>(arr);
    if (a.ndim() != 2 || a.shape(1) != 4 || a.shape(0) < 1)
      throw Error("target: rows of x, y, vx, vy (m, m/s)");
    table.assign(a.data(), a.data() + a.size());
  }
  bool nm = optimizer == "nelder-mead" || optimizer == "both";
  bool cma = optimizer == "cmaes" || optimizer == "both";
  if (!nm && !cma) throw Error("optimizer '" + optimizer + "': nelder-mead, cmaes or both");
  if (starts < 1 || evals < 1 || !(budget >= 0.0) || !(dt > 0.0) || !(horizon >= 0.25) ||
      !(mu >= 0.0))
    throw Error("starts, evals >= 1; budget >= 0 (0: none); dt > 0; horizon >= 0.25; mu >= 0");
  double x0[12];
  tbPlateObjOpt oo = tb_defaultPlateObjOpt(kind, x0);
  oo.device = JobDevice(device);
  oo.nstart = starts;
  oo.horizon = horizon;
  oo.dt = dt;
  oo.mu = mu;
  oo.point = table.empty() ? nullptr : table.data();
  oo.npoint = (int)(table.size() / 4);
  tbPlateObj* ob = tb_newPlateObj(&oo);
  if (!ob) throw Error(tb_lastError());
  std::unique_ptr<tbPlateObj, void (*)(tbPlateObj*)> hold(ob, tb_freePlateObj);
  const tbPlateObjOpt* o = tb_plateObjOpt(ob);
  int dim = o->dim;
  double lo[12], hi[12], step[12], start_f, xbest[12];
  tb_plateSearchBox(o, x0, lo, hi, step);
  nb::dict runs;
  double best = 0.0;
  {
    ThreadScope scope(threads);
    nb::gil_scoped_release nogil;
    Check(tb_plateObjective(ob, 1, x0, &start_f));
    best = start_f;
    std::memcpy(xbest, x0, sizeof(double) * dim);
    for (int r = 0; r < 2; r++) {
      if (!(r ? cma : nm)) continue;
      tbOptimDef def = tb_defaultOptimDef(dim);
      def.x0 = x0;
      def.step = step;
      def.lo = lo;
      def.hi = hi;
      def.max_evals = (int)evals;
      def.max_seconds = budget;
      def.progress = PlateRunProgress;  // Ctrl-C: seen after each iteration
      PlateRun run = {ob};
      double x[12];
      tbOptimResult res;
      int st = r ? tb_cmaes(&def, PlateRunObjective, &run, x, &res)
                 : tb_nelderMead(&def, PlateRunObjective, &run, x, &res);
      if (run.interrupted) {
        nb::gil_scoped_acquire gil;
        throw nb::python_error();
      }
      if (st < 0 || st == TB_OPTIM_ABORTED) throw Error(tb_lastError());
      double f = res.f <= start_f ? res.f : start_f;  // the start is kept when nothing beat it
      if (f < best) {
        best = f;
        std::memcpy(xbest, x, sizeof(double) * dim);
      }
      nb::gil_scoped_acquire gil;
      runs[r ? "cmaes" : "nelder-mead"] = Dict({{"best", nb::cast(f)},
                                                {"iterations", nb::cast(res.iterations)},
                                                {"evaluations", nb::cast(res.evaluations)},
                                                {"seconds", nb::cast(res.seconds)},
                                                {"reason", nb::cast(res.reason)}});
    }
  }
  auto p12 = NewArray<double>({12});
  tb_plateObjParams(ob, xbest, p12.data());
  return Dict({{"params", nb::cast(p12)},
               {"start", nb::cast(start_f)},
               {"best", nb::cast(best)},
               {"runs", runs}});
}

}  // namespace

NB_MODULE(_tumble, mod) {
  mod.doc() = "tumble's engine: batches of rigid-body scenes with frictional contact";
  nb::exception<Error>(mod, "Error", PyExc_ValueError);

  nb::class_<Model>(mod, "Model")
      .def_static("builtin", &Builtin, "name"_a, "options"_a = nb::dict(), "cone"_a = "exact",
                  "facets"_a = 8, "align"_a = false,
                  "A built-in scene (tumble.scenes()); options are its structural ones")
      .def_static("from_mjcf", &FromMjcf, "src"_a, "An MJCF file, or its XML text")
      .def_prop_ro("name", [](const Model& m) { return m.name; })
      .def_prop_ro("read_past", [](const Model& m) { return m.read_past; })
      .def_prop_ro("params", &Params)
      .def_prop_ro("bodies", &Bodies)
      .def_prop_ro("timestep", [](const Model& m) { return m.m->opt.timestep; })
      .def_prop_rw(
          "solver", [](const Model& m) { return std::string(tb_solverName(m.m->opt.solver)); },
          [](Model& m, const std::string& name) {
            int k = tb_findSolver(name.c_str());
            if (k < 0) throw Error("solver '" + name + "': unknown (tumble solve --list)");
            m.m->opt.solver = k;
          },
          "The step solver (simulate --solver): 'pgs', 'auto', ...")
      .def_prop_rw(
          "max_iter", [](const Model& m) { return m.m->opt.max_iter; },
          [](Model& m, long k) {
            if (k < 1 || k > INT_MAX) throw Error("max_iter " + std::to_string(k) + ": >= 1");
            m.m->opt.max_iter = (int)k;
          },
          "The step solver's iteration cap (simulate --max-iter)")
      .def_prop_rw(
          "tol", [](const Model& m) { return m.m->opt.tol; },
          [](Model& m, double t) {
            if (!(t > 0.0) || !std::isfinite(t)) throw Error("tol " + std::to_string(t) + ": > 0");
            m.m->opt.tol = t;
          },
          "The step solver's relative residual tolerance (simulate --solver-tol)")
      .def(
          "batch",
          [](const ModelPtr& self, long n, const nb::dict& params, long seed,
             const nb::kwargs& kw) {
            nb::dict all;
            for (auto [k, v] : params) all[k] = v;
            for (auto [k, v] : kw) all[k] = v;
            return NewBatch(self, n, all, seed);
          },
          "n"_a, "params"_a = nb::dict(), "seed"_a = 0, "kwargs"_a,
          "n scenes; each parameter (params, or keywords) a number, a spec string 'V', 'LO:HI', "
          "'uniform:LO:HI' (as --param, with seed), or an array of n values");

  nb::class_<Batch>(mod, "Batch")
      .def_prop_ro("n", [](const Batch& b) { return b.d->nscene; })
      .def_prop_ro("model", [](const Batch& b) { return b.model; })
      .def("state", &State, "The bodies' current pos, quat and vel")
      .def("stats", [](const Batch& b) { return SceneStats(b.d); })
      .def("_rollout", &Rollout, "steps"_a, "record_every"_a = 0, "chunk"_a = 0,
           "device"_a = "auto", "threads"_a = 0, "precision"_a = "fp64");

  mod.def("_grasp", &Grasp, "grid"_a, "extent"_a, "center"_a, "trials"_a, "seed"_a, "surface_mu"_a,
          "gripper_mu"_a, "speed"_a, "chunk"_a, "device"_a, "threads"_a);
  mod.def("_grasp3d_files", &Grasp3dFiles, "gripper"_a, "part"_a, "grid"_a, "extent"_a, "trials"_a,
          "seed"_a, "mass"_a, "mu"_a, "pos_noise"_a, "yaw_noise"_a, "tcp"_a, "grasp_height"_a,
          "open"_a, "close"_a, "close_time"_a, "disturb"_a, "slip"_a, "hold"_a, "dt"_a,
          "candidates"_a, "device"_a, "threads"_a);
  mod.def("_plate_field", &PlateField, "motion"_a, "grid"_a, "extent"_a, "seconds"_a, "dt"_a,
          "mu"_a, "part"_a, "params"_a, "device"_a, "threads"_a);
  mod.def("_estimate_pf", &EstimatePF, "model"_a, "observations"_a, "priors"_a, "noise"_a,
          "particles"_a, "params"_a, "seed"_a, "delta"_a, "replay"_a, "max_stage"_a, "device"_a,
          "threads"_a);
  mod.def("_estimate_fit", &EstimateFit, "model"_a, "observations"_a, "names"_a, "init"_a,
          "bounds"_a, "fit_state"_a, "scan"_a, "max_iter"_a, "params"_a, "device"_a, "threads"_a);
  mod.def("_plate_optimize", &PlateOptimize, "target"_a, "optimizer"_a, "starts"_a, "evals"_a,
          "budget"_a, "dt"_a, "horizon"_a, "mu"_a, "device"_a, "threads"_a);
  mod.def("scenes", [] {
    std::vector<std::string> out;
    for (int i = 0; i < tb_sceneCount(); i++) out.push_back(tb_sceneInfo(i)->name);
    return out;
  });
  mod.def("plate_motions", [] {
    std::vector<std::string> out;
    for (int i = 0; i < tb_plateMotionCount(); i++) out.push_back(tb_plateMotion(i)->name);
    return out;
  });
}
