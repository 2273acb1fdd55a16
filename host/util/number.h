// A number as the user typed it (an option's value, a parameter's spec): one finite double.
#ifndef TUMBLE_HOST_NUMBER_H_
#define TUMBLE_HOST_NUMBER_H_

#ifdef __cplusplus
extern "C" {
#endif

// s whole as a finite double into *out: TB_OK, or TB_ERR_ARG with tb_lastError() "WHAT: ..."
// saying why (not a number, beyond the largest double, below the smallest, inf or nan). A
// subnormal result (1e-320) is a double and taken: the range of what takes it decides
int tb_readNumber(const char* what, const char* s, double* out);

#ifdef __cplusplus
}
#endif

#endif  // TUMBLE_HOST_NUMBER_H_
