/* acl/acl.h — the AscendCL host API subset that aclnn programs use, implemented on the CPU by opgen's runtime
 * (generated/c/src/opgen_runtime.c).  Names, signatures and enum values are CANN's. */
#ifndef OPGEN_ACL_ACL_H_
#define OPGEN_ACL_ACL_H_

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Initialise AscendCL once per process (configPath may be NULL).  A second call without aclFinalize returns
 * ACL_ERROR_REPEAT_INITIALIZE. */
aclError aclInit(const char *configPath);

/* Release AscendCL; executors never run are freed.  Without aclInit: ACL_ERROR_UNINITIALIZE. */
aclError aclFinalize(void);

/* The text of the last error of this thread: the rule a phase-1 check broke and the parameter it names, or
 * why a runtime call failed.  "" when nothing failed yet.  The text stays until the next error. */
const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif
#endif /* OPGEN_ACL_ACL_H_ */
