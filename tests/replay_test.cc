// Replays: the contacts and forces a frame draws (tb_stepContacts), the drawing itself, the MP4,
// and every command's --replay reproducing its batch's scene.
#include <gtest/gtest.h>

#include <cairo.h>
extern "C" {
#include <libavformat/avformat.h>
}

#include <algorithm>
#include <cmath>
#include <cstring>
#include <vector>

#include <tumble/grasp.h>

#include "cli_runner.h"
#include "engine/engine.h"
#include "jobs/outfile.h"
#include "plot/replay.h"

namespace {

// a 2 kg box of half-size 0.1 m on the ground plane (body 0), at rest after a second
struct RestingBox {
  tbModel* m = nullptr;
  tbData* d = nullptr;
  int box = -1;
  RestingBox() {
    m = tb_newModel();
    tbBodyDef g = tb_defaultBodyDef();
    g.type = TB_BODY_STATIC;
    tbGeomDef gd = tb_defaultGeomDef();
    gd.body = tb_addBody(m, &g);
    gd.type = TB_GEOM_PLANE;
    tb_addGeom(m, &gd);
    tbBodyDef bd = tb_defaultBodyDef();
    bd.mass = 2.0;
    bd.inertia[0] = bd.inertia[1] = bd.inertia[2] = 2.0 * 0.08 / 12.0;
    bd.pos[2] = 0.1;
    box = tb_addBody(m, &bd);
    gd = tb_defaultGeomDef();
    gd.body = box;
    gd.type = TB_GEOM_BOX;
    gd.size[0] = gd.size[1] = gd.size[2] = 0.1;
    tb_addGeom(m, &gd);
    EXPECT_EQ(tb_compileModel(m), TB_OK) << tb_lastError();
    d = tb_newData(m, 1);
    EXPECT_EQ(tb_resetData(m, d), TB_OK) << tb_lastError();
  }
  ~RestingBox() {
    tb_freeData(d);
    tb_freeModel(m);
  }
};

// the force of contact c on body b
void ForceOn(const tbContactForce& c, int b, double f[3]) {
  double sign = c.body[0] == b ? 1.0 : -1.0;
  for (int i = 0; i < 3; i++) f[i] = sign * c.force[i];
}

}  // namespace

// the ground carries the box's weight through its four corners
TEST(ReplayTest, ContactForcesOfARestingBoxSumToItsWeightAtItsCorners) {
  RestingBox s;
  ASSERT_EQ(tb_rollout(s.m, s.d, 0, 1, 1000, nullptr), TB_OK);
  tbWork* w = tb_newWork(s.m);
  tb_stepScene(s.m, s.d, 0, w);
  std::vector<tbContactForce> con(s.m->maxrow);
  int n = tb_stepContacts(s.m, w, con.data());
  ASSERT_EQ(n, 4);
  double sum[3] = {0, 0, 0};
  for (int i = 0; i < n; i++) {
    EXPECT_TRUE(con[i].body[0] == s.box || con[i].body[1] == s.box);
    EXPECT_NEAR(std::fabs(con[i].pos[0]), 0.1, 1e-9) << "a corner";
    EXPECT_NEAR(std::fabs(con[i].pos[1]), 0.1, 1e-9) << "a corner";
    EXPECT_NEAR(con[i].pos[2], 0.0, 1e-9) << "on the ground";
    double f[3];
    ForceOn(con[i], s.box, f);
    for (int k = 0; k < 3; k++) sum[k] += f[k];
  }
  EXPECT_NEAR(sum[0], 0.0, 1e-6);
  EXPECT_NEAR(sum[1], 0.0, 1e-6);
  EXPECT_NEAR(sum[2], 2.0 * 9.81, 1e-6 * 2.0 * 9.81) << "the weight, upward on the box";
  tb_freeWork(w);
}

// a planar part's support tripod: its three contacts sit at the tripod's points, turned and
// moved with the part, after the finger contacts
TEST(ReplayTest, SupportContactsSitAtTheTripodPoints) {
  tbGraspDef def = tb_defaultGraspDef();
  tbModel* m = tb_buildGraspModel(&def);
  ASSERT_NE(m, nullptr) << tb_lastError();
  tbData* d = tb_newData(m, 1);
  const double offset[2] = {0.0, -0.01};
  tb_graspDraw(m, &def, 7, 0, 3, offset, d->param);
  ASSERT_EQ(tb_resetData(m, d), TB_OK) << tb_lastError();
  tbWork* w = tb_newWork(m);
  tb_stepScene(m, d, 0, w);
  std::vector<tbContactForce> con(m->maxrow);
  int n = tb_stepContacts(m, w, con.data());
  ASSERT_GE(n, 3);
  int part = tb_findBody(m, "part");
  const double* pos = d->body_pos + 3 * part;  // one step on: the tripod moved with it
  double dx[2] = {pos[0] - w->xpos[3 * part], pos[1] - w->xpos[3 * part + 1]};
  for (int i = 0; i < 3; i++) {
    const tbContactForce& c = con[n - 3 + i];
    double px = d->param[tb_findParam(m, ("sup_x" + std::to_string(i + 1)).c_str())];
    double py = d->param[tb_findParam(m, ("sup_y" + std::to_string(i + 1)).c_str())];
    EXPECT_EQ(c.body[0], part);
    EXPECT_EQ(c.body[1], -1);
    // at the start the part is not turned: the point is the centre plus the tripod's offset
    EXPECT_NEAR(c.pos[0], pos[0] - dx[0] + px, 1e-12) << "support point " << i;
    EXPECT_NEAR(c.pos[1], pos[1] - dx[1] + py, 1e-12) << "support point " << i;
  }
  tb_freeWork(w);
  tb_freeData(d);
  tb_freeModel(m);
}

// the resting box seen from the side: its colour inside it, the ground's shade below, white above,
// and the ground's force an upward arrow from the middle of its base
TEST(ReplayTest, FrameDrawsTheShapesWhereTheyAreAndTheForceUpward) {
  RestingBox s;
  ASSERT_EQ(tb_rollout(s.m, s.d, 0, 1, 1000, nullptr), TB_OK);
  tbWork* w = tb_newWork(s.m);
  std::vector<double> pos(s.d->body_pos, s.d->body_pos + 3 * s.m->nbody);
  std::vector<double> quat(s.d->body_quat, s.d->body_quat + 4 * s.m->nbody);
  tb_stepScene(s.m, s.d, 0, w);
  std::vector<tbContactForce> con(s.m->maxrow);
  tbReplayFrame f = {1.0, 1000, pos.data(), quat.data(), 0, con.data()};
  f.ncon = tb_stepContacts(s.m, w, con.data());
  const double size[6] = {0, 0, 0, 0.1, 0.1, 0.1};
  tbSceneView v = {TB_VIEW_SIDE, 0.0, 0.1, 200.0, 150.0, 500.0};  // the box: x 150..250, y 100..200
  cairo_surface_t* sf = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 400, 300);
  cairo_t* cr = cairo_create(sf);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  double newton = 80.0 / (2.0 * 9.81);  // the weight drawn 80 px long
  tb_drawFrame(cr, s.m, size, &v, &f, newton);
  cairo_destroy(cr);
  cairo_surface_flush(sf);
  const unsigned char* px = cairo_image_surface_get_data(sf);
  int stride = cairo_image_surface_get_stride(sf);
  auto rgb = [&](int x, int y, int c) { return px[y * stride + 4 * x + (2 - c)]; };  // BGRX
  EXPECT_GT(rgb(160, 110, 2), 150) << "the box (blue) at its upper left";
  EXPECT_LT(rgb(160, 110, 0), 100);
  EXPECT_EQ(rgb(50, 50, 0), 255) << "white above the ground";
  EXPECT_EQ(rgb(50, 250, 0), rgb(50, 250, 2)) << "grey below it";
  EXPECT_LT(rgb(50, 250, 0), 240);
  // the 2 px arrow straddles columns 199 and 200: half red, half the box's blue
  EXPECT_GT(rgb(200, 160, 0), rgb(160, 110, 0) + 50) << "the red arrow 40 px up the middle";
  EXPECT_GT(rgb(200, 160, 0), rgb(200, 160, 2) + 30);
  EXPECT_LT(rgb(200, 110, 0), 100) << "and it ends 80 px up: blue above";
  cairo_surface_destroy(sf);
  tb_freeWork(w);
}

namespace {

// the frames of the first video stream of an MP4, and its size
struct VideoInfo {
  int frames = 0, width = 0, height = 0;
  double seconds = 0.0;
};

VideoInfo Probe(const std::string& path) {
  VideoInfo v;
  AVFormatContext* fmt = nullptr;
  if (avformat_open_input(&fmt, path.c_str(), nullptr, nullptr) < 0) return v;
  if (avformat_find_stream_info(fmt, nullptr) >= 0) {
    int st = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, nullptr, 0);
    if (st >= 0) {
      v.width = fmt->streams[st]->codecpar->width;
      v.height = fmt->streams[st]->codecpar->height;
      v.seconds = fmt->duration / (double)AV_TIME_BASE;
      AVPacket* pkt = av_packet_alloc();
      while (av_read_frame(fmt, pkt) >= 0) {
        v.frames += pkt->stream_index == st;
        av_packet_unref(pkt);
      }
      av_packet_free(&pkt);
    }
  }
  avformat_close_input(&fmt);
  return v;
}

}  // namespace

// a frame each speed / fps simulated seconds, from the first state to the last
TEST(ReplayTest, VideoHasAFrameEachTickOfItsClock) {
  RestingBox s;
  s.d->body_pos[3 * s.box + 2] = 0.3;  // dropped from 0.2 m
  tbRecord rec = {1, tb_recordCount(500, 1), nullptr, nullptr, nullptr};
  std::vector<double> state((size_t)rec.nrecord * s.m->nbody * 13), time(rec.nrecord);
  std::vector<int> step(rec.nrecord);
  rec.state = state.data();
  rec.time = time.data();
  rec.step = step.data();
  ASSERT_EQ(tb_rollout(s.m, s.d, 0, 1, 500, &rec), TB_OK);  // 0.5 s at the default 1 ms
  char tmpl[] = "/tmp/tumble_video_XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  std::string path = std::string(tmpl) + "/drop.mp4";
  tbReplayOpt o = tb_defaultReplayOpt(TB_VIEW_SIDE);
  o.speed = 0.5;  // a frame each 1/60 s: 0, 1/60, ..., 30/60
  o.width = 320;
  o.height = 240;
  o.title = "drop";
  tbOutFile out;
  ASSERT_EQ(tb_outOpen(&out, path.c_str()), TB_OK) << tb_lastError();
  ASSERT_EQ(tb_writeReplay(out.f, s.m, s.d, &rec, &o), TB_OK) << tb_lastError();
  ASSERT_EQ(tb_outCommit(&out), TB_OK) << tb_lastError();
  EXPECT_FALSE(Exists(path + ".part"));
  VideoInfo v = Probe(path);
  EXPECT_EQ(v.frames, 31);
  EXPECT_EQ(v.width, 320);
  EXPECT_EQ(v.height, 240);
  EXPECT_NEAR(v.seconds, 31.0 / 30.0, 0.05);
  o.speed = 0.0;
  ASSERT_EQ(tb_outOpen(&out, path.c_str()), TB_OK) << tb_lastError();
  EXPECT_EQ(tb_writeReplay(out.f, s.m, s.d, &rec, &o), TB_ERR_ARG);
  EXPECT_NE(std::string(tb_lastError()).find("speed"), std::string::npos) << tb_lastError();
  tb_outAbort(&out);
  std::filesystem::remove_all(tmpl);
}

class ReplayCliTest : public CliFixture {};

// simulate --replay K: scene K of the batch, every step of it bitwise the batch's, and a video
TEST_F(ReplayCliTest, SimulateReplayIsTheBatchesScene) {
  std::string batch = Path("batch.csv"), stem = Path("one");
  CliResult r = RunCli({"simulate", "box-stack", "--scenes", "3", "--steps", "60", "--every", "1",
                        "--param", "mu=0.2:0.8", "--out", batch});
  ASSERT_EQ(r.status, 0) << r.err;
  r = RunCli({"simulate", "box-stack", "--scenes", "3", "--steps", "60", "--param", "mu=0.2:0.8",
              "--replay", "2", "--replay-speed", "0.5", "--out", stem + ".csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("\"video\": \"" + stem + ".mp4\""), std::string::npos) << r.out;
  std::vector<std::string> want;
  for (const auto& line : Lines(ReadFile(batch))) {
    if (line.rfind("2,", 0) == 0) want.push_back(line.substr(2));
  }
  auto got = Lines(ReadFile(stem + ".csv"));
  ASSERT_EQ(got.size(), want.size() + 1);
  for (size_t i = 0; i < want.size(); i++) EXPECT_EQ(got[i + 1].substr(2), want[i]) << i;
  EXPECT_EQ(Probe(stem + ".mp4").frames, 4);  // every 1/60 s over 60 steps of 1 ms
}

// a replay's outputs are checked before the run, and a view the scene cannot take is refused
TEST_F(ReplayCliTest, ReplayRefusesWhatItCannotDraw) {
  CliResult r = RunCli({"grasp", "--grid", "3x3", "--trials", "2", "--replay", "4,1", "--view",
                        "side", "--out", Path("g")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--view side"), std::string::npos) << r.err;
  r = RunCli({"simulate", "box-stack", "--replay", "0", "--out", Path("no/such/dir/x.csv")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("no/such/dir"), std::string::npos) << r.err;
  r = RunCli({"simulate", "box-stack", "--replay", "0", "--replay-speed", "0"});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("--replay-speed"), std::string::npos) << r.err;
  r = RunCli({"plate", "field", "--grid", "2x2", "--replay", "4", "--out", Path("p")});
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("start 4"), std::string::npos) << r.err;
  for (const auto& e : std::filesystem::directory_iterator(Path("."))) {
    if (e.path().filename() != ".stderr") ADD_FAILURE() << "left behind: " << e.path();
  }
}

// grasp3d --replay: each trial of a cell alone; together they hold the object as often as the
// study says
TEST_F(ReplayCliTest, Grasp3dReplaysAddUpToTheStudysCell) {
  std::string args[] = {"--grid", "1x1", "--trials", "4", "--mu", "0.1:0.5", "--seed", "3"};
  std::vector<std::string> study = {"grasp3d", "--out", Path("s")};
  study.insert(study.end(), std::begin(args), std::end(args));
  CliResult r = RunCli(study);
  ASSERT_EQ(r.status, 0) << r.err;
  auto rows = Lines(ReadFile(Path("s.csv")));
  ASSERT_EQ(rows.size(), 2u);
  auto head = Split(rows[0], ','), row = Split(rows[1], ',');
  size_t col = (size_t)(std::find(head.begin(), head.end(), "successes") - head.begin());
  ASSERT_LT(col, head.size()) << rows[0];
  int held = 0;
  for (int t = 0; t < 4; t++) {
    std::vector<std::string> one = study;
    one[2] = Path("r");
    one.insert(one.end(), {"--replay", "0," + std::to_string(t), "--replay-speed", "2"});
    r = RunCli(one);
    ASSERT_EQ(r.status, 0) << r.err;
    held += r.out.find("\"success\": 1") != std::string::npos;
    EXPECT_GT(Probe(Path("r-replay-0-" + std::to_string(t) + ".mp4")).frames, 10);
  }
  EXPECT_EQ(held, std::stoi(row[col]));
}

// plate field --replay: the start alone, from its place on the plate, moving at the field's
// velocity over the field's window (whole periods after half the run)
TEST_F(ReplayCliTest, PlateFieldReplayIsTheFieldsStart) {
  std::vector<std::string> args = {"plate",  "field", "--motion",  "circle-vose",
                                   "--grid", "2x1",   "--seconds", "0.2",
                                   "--dt",   "1e-3",  "--out",     Path("f")};
  CliResult r = RunCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  auto rows = Lines(ReadFile(Path("f.csv")));
  ASSERT_EQ(rows.size(), 3u);
  auto field = Split(rows[2], ',');  // start 1: x0, y0, mean_x, mean_y, vx, vy, ...
  args.insert(args.end(), {"--replay", "1"});
  r = RunCli(args);
  ASSERT_EQ(r.status, 0) << r.err;
  auto traj = Lines(ReadFile(Path("f-replay-1.csv")));
  std::vector<std::vector<std::string>> part;
  for (size_t i = 1; i < traj.size(); i++) {
    auto v = Split(traj[i], ',');
    if (v[3] == "particle") part.push_back(v);
  }
  ASSERT_EQ(part.size(), 201u);
  EXPECT_EQ(std::stod(part[0][4]), std::stod(field[0]));
  EXPECT_EQ(std::stod(part[0][5]), std::stod(field[1]));
  // steps 100 to 100 + 3 periods of 1/33 s (91 steps)
  const int k0 = 100, k1 = 191;
  double vx = (std::stod(part[k1][4]) - std::stod(part[k0][4])) / ((k1 - k0) * 1e-3);
  EXPECT_NEAR(vx, std::stod(field[4]), 1e-12 * (1.0 + std::fabs(vx)));
  EXPECT_GT(Probe(Path("f-replay-1.mp4")).frames, 5);
}
