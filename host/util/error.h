// The calling thread's error message: API functions set it with the bad field and value, the CLI
// prints it. Stages never touch it (they report through the scene's status bits).
#ifndef TUMBLE_HOST_ERROR_H_
#define TUMBLE_HOST_ERROR_H_

#include <tumble/tumble.h>

#ifdef __cplusplus
extern "C" {
#endif

// set the calling thread's error message (printf-style); returns TB_ERR_ARG for chaining
int tb_setError(const char* fmt, ...);
void tb_clearError(void);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_ERROR_H_
