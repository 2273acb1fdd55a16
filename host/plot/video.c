// MP4 video through FFmpeg's libraries (libavformat, libavcodec, libswscale).
#include <stdio.h>
#include <stdlib.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>

#include "util/error.h"
#include "plot/video.h"

enum { TB_VIDEO_IO_BYTES = 1 << 16 };

struct tbVideo {
  FILE* f;
  AVFormatContext* fmt;
  AVCodecContext* enc;
  AVStream* stream;
  AVFrame* frame;
  AVPacket* pkt;
  struct SwsContext* sws;
  int64_t next_pts;
};

// FFmpeg writes through the caller's file, so the mp4 muxer can seek back to its index
static int tb_videoWrite(void* f, uint8_t* buf, int n) {
  return fwrite(buf, 1, (size_t)n, (FILE*)f) == (size_t)n ? n : AVERROR(EIO);
}

static int64_t tb_videoSeek(void* f, int64_t offset, int whence) {
  if (whence == AVSEEK_SIZE) return -1;
  return fseeko((FILE*)f, (off_t)offset, whence & ~AVSEEK_FORCE) == 0 ? ftello((FILE*)f) : -1;
}

static int tb_videoError(const char* what, int err) {
  char text[128];
  av_strerror(err, text, sizeof(text));
  return tb_setError("video: %s: %s", what, text);
}

// H.264 where FFmpeg has it (Debian's: libx264), else its own MPEG-4 part 2 encoder; one thread
// and bit-exact flags, so the same frames give the same file
static int tb_videoEncoder(tbVideo* v, int width, int height, int fps) {
  const AVCodec* codec = avcodec_find_encoder(AV_CODEC_ID_H264);
  if (!codec) codec = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
  if (!codec) return tb_setError("video: FFmpeg has neither an H.264 nor an MPEG-4 encoder");
  v->enc = avcodec_alloc_context3(codec);
  if (!v->enc) return tb_setError("video: out of memory");
  AVCodecContext* c = v->enc;
  c->width = width;
  c->height = height;
  c->time_base = (AVRational){1, fps};
  c->framerate = (AVRational){fps, 1};
  c->pix_fmt = AV_PIX_FMT_YUV420P;
  c->gop_size = fps;
  c->thread_count = 1;
  c->flags |= AV_CODEC_FLAG_BITEXACT;
  if (v->fmt->oformat->flags & AVFMT_GLOBALHEADER) c->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if (codec->id == AV_CODEC_ID_H264) {
    av_opt_set(c->priv_data, "preset", "veryfast", 0);
    av_opt_set(c->priv_data, "crf", "20", 0);
  } else {
    c->bit_rate = 4000000;
  }
  int err = avcodec_open2(c, codec, NULL);
  if (err < 0) return tb_videoError(codec->name, err);
  v->stream = avformat_new_stream(v->fmt, NULL);
  if (!v->stream) return tb_setError("video: out of memory");
  v->stream->time_base = c->time_base;
  err = avcodec_parameters_from_context(v->stream->codecpar, c);
  return err < 0 ? tb_videoError("stream parameters", err) : TB_OK;
}

static int tb_videoSetup(tbVideo* v, int width, int height, int fps) {
  int err = avformat_alloc_output_context2(&v->fmt, NULL, "mp4", NULL);
  if (err < 0) return tb_videoError("mp4 muxer", err);
  v->fmt->flags |= AVFMT_FLAG_BITEXACT;
  unsigned char* buf = (unsigned char*)av_malloc(TB_VIDEO_IO_BYTES);
  v->fmt->pb =
      buf ? avio_alloc_context(buf, TB_VIDEO_IO_BYTES, 1, v->f, NULL, tb_videoWrite, tb_videoSeek)
          : NULL;
  if (!v->fmt->pb) {
    av_free(buf);
    return tb_setError("video: out of memory");
  }
  int rc = tb_videoEncoder(v, width, height, fps);
  if (rc != TB_OK) return rc;
  v->frame = av_frame_alloc();
  v->pkt = av_packet_alloc();
  if (!v->frame || !v->pkt) return tb_setError("video: out of memory");
  v->frame->format = AV_PIX_FMT_YUV420P;
  v->frame->width = width;
  v->frame->height = height;
  if ((err = av_frame_get_buffer(v->frame, 0)) < 0) return tb_videoError("frame", err);
  // cairo's ARGB32 is a native-endian word: B, G, R, A bytes on the little-endian hosts we build
  v->sws = sws_getContext(width, height, AV_PIX_FMT_BGRA, width, height, AV_PIX_FMT_YUV420P,
                          SWS_BICUBIC, NULL, NULL, NULL);
  if (!v->sws) return tb_setError("video: no BGRA to YUV420P conversion");
  err = avformat_write_header(v->fmt, NULL);
  return err < 0 ? tb_videoError("mp4 header", err) : TB_OK;
}

static void tb_videoFree(tbVideo* v) {
  if (v->fmt && v->fmt->pb) {
    av_freep(&v->fmt->pb->buffer);
    avio_context_free(&v->fmt->pb);
  }
  avformat_free_context(v->fmt);
  avcodec_free_context(&v->enc);
  av_frame_free(&v->frame);
  av_packet_free(&v->pkt);
  sws_freeContext(v->sws);
  free(v);
}

tbVideo* tb_videoOpen(FILE* f, int width, int height, int fps) {
  if (width <= 0 || height <= 0 || width % 2 || height % 2 || fps <= 0) {
    tb_setError("video: %dx%d at %d fps (sizes even and > 0, fps > 0)", width, height, fps);
    return NULL;
  }
  tbVideo* v = (tbVideo*)calloc(1, sizeof(tbVideo));
  if (!v) {
    tb_setError("video: out of memory");
    return NULL;
  }
  av_log_set_level(AV_LOG_ERROR);
  v->f = f;
  if (tb_videoSetup(v, width, height, fps) != TB_OK) {
    tb_videoAbort(v);
    return NULL;
  }
  return v;
}

// every packet the encoder has ready, into the file
static int tb_videoDrain(tbVideo* v) {
  for (;;) {
    int err = avcodec_receive_packet(v->enc, v->pkt);
    if (err == AVERROR(EAGAIN) || err == AVERROR_EOF) return TB_OK;
    if (err < 0) return tb_videoError("encode", err);
    av_packet_rescale_ts(v->pkt, v->enc->time_base, v->stream->time_base);
    v->pkt->stream_index = v->stream->index;
    err = av_interleaved_write_frame(v->fmt, v->pkt);
    if (err < 0) return tb_videoError("write", err);
  }
}

int tb_videoFrame(tbVideo* v, const unsigned char* argb, int stride) {
  int err = av_frame_make_writable(v->frame);
  if (err < 0) return tb_videoError("frame", err);
  const uint8_t* src[1] = {argb};
  const int src_stride[1] = {stride};
  sws_scale(v->sws, src, src_stride, 0, v->enc->height, v->frame->data, v->frame->linesize);
  v->frame->pts = v->next_pts++;
  err = avcodec_send_frame(v->enc, v->frame);
  return err < 0 ? tb_videoError("encode", err) : tb_videoDrain(v);
}

int tb_videoClose(tbVideo* v) {
  int err = avcodec_send_frame(v->enc, NULL);
  int rc = err < 0 ? tb_videoError("flush", err) : tb_videoDrain(v);
  if (rc == TB_OK && (err = av_write_trailer(v->fmt)) < 0) rc = tb_videoError("mp4 index", err);
  if (rc == TB_OK) {
    avio_flush(v->fmt->pb);
    rc = v->fmt->pb->error < 0 ? tb_videoError("write", v->fmt->pb->error) : TB_OK;
  }
  tb_videoFree(v);
  return rc;
}

void tb_videoAbort(tbVideo* v) {
  if (v) tb_videoFree(v);
}
