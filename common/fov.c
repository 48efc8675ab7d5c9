/* common/fov.c: being written. */
