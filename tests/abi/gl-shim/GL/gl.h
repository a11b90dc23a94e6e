/* GL/gl.h for the ABI check where no OpenGL headers are installed:
 * cudaGL.h includes it for the two GL types its prototypes use, which
 * Khronos' gl.h defines so (gl.h of Mesa and of libglvnd alike).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */

#pragma once

typedef unsigned int GLenum;
typedef unsigned int GLuint;
