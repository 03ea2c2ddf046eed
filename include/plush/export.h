// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Symbol visibility: the shared library (libplush.so) is built with hidden
// symbols, and exports only what is marked PLUSH_EXPORT — the public API.

#ifndef PLUSH_EXPORT_H_
#define PLUSH_EXPORT_H_

#define PLUSH_EXPORT [[gnu::visibility("default")]]

#endif  // PLUSH_EXPORT_H_
