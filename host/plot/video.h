// MP4 video through FFmpeg's libraries: cairo frames encoded as H.264 (MPEG-4 part 2 where the
// FFmpeg build has no H.264 encoder), written whole like every output (outfile.h).
#ifndef TUMBLE_HOST_VIDEO_H_
#define TUMBLE_HOST_VIDEO_H_

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tbVideo tbVideo;

// a width x height video (both even) at fps frames per second, written to path.part; NULL with
// tb_lastError() naming the path or what FFmpeg refused
tbVideo* tb_videoOpen(const char* path, int width, int height, int fps);
// append one frame: cairo's ARGB32 pixels, `stride` bytes a row; TB_OK or an error
int tb_videoFrame(tbVideo* v, const unsigned char* argb, int stride);
// flush, finish the file and rename it into place; TB_OK or an error (nothing left at path)
int tb_videoClose(tbVideo* v);
// drop the video (the temporary file removed); NULL is a no-op
void tb_videoAbort(tbVideo* v);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_VIDEO_H_
