/* aclnnop/aclnn_util.h — what CANN's operator headers take from it: ACLNN_API, which marks the operators'
 * functions as the library's public symbols. */
#ifndef OPGEN_ACLNNOP_ACLNN_UTIL_H_
#define OPGEN_ACLNNOP_ACLNN_UTIL_H_

#ifndef ACLNN_API
#if defined(__GNUC__)
#define ACLNN_API __attribute__((visibility("default")))
#else
#define ACLNN_API
#endif
#endif

#endif /* OPGEN_ACLNNOP_ACLNN_UTIL_H_ */
