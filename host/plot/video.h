// MP4 video through FFmpeg's libraries: cairo frames encoded as H.264 (MPEG-4 part 2 where the
// FFmpeg build has no H.264 encoder), into a file the caller opened (an output file of outfile.h,
// committed by the caller).
#ifndef TUMBLE_HOST_VIDEO_H_
#define TUMBLE_HOST_VIDEO_H_

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tbVideo tbVideo;

// a width x height video (both even) at fps frames per second, written into f (seekable: the
// muxer goes back to write its index); NULL with tb_lastError() saying what FFmpeg refused
tbVideo* tb_videoOpen(FILE* f, int width, int height, int fps);
// append one frame: cairo's ARGB32 pixels, `stride` bytes a row; TB_OK or an error
int tb_videoFrame(tbVideo* v, const unsigned char* argb, int stride);
// flush, finish the file and free v; TB_OK or an error
int tb_videoClose(tbVideo* v);
// drop the video (what was written to f stays: the caller aborts its file); NULL is a no-op
void tb_videoAbort(tbVideo* v);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_VIDEO_H_
