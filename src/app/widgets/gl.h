// OpenGL headers for both builds: WebGL2 (GLES 3.0) in the browser, OpenGL 3.3 core natively.
#pragma once

#if defined(__EMSCRIPTEN__)
#include <GLES3/gl3.h>
#define AP_GLSL_HEADER "#version 300 es\nprecision highp float;\nprecision highp int;\n"
#else
#define GL_GLEXT_PROTOTYPES 1
#include <GL/glcorearb.h>
#define AP_GLSL_HEADER "#version 330 core\n"
#endif
