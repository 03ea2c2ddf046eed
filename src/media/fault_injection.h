// Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
//
// Failures that tests inject into the file back end: the operating
// system's errors that cannot be provoked on demand on a healthy machine.
// Not for production use; nothing here is part of the public API.

#ifndef PLUSH_MEDIA_FAULT_INJECTION_H_
#define PLUSH_MEDIA_FAULT_INJECTION_H_

namespace plush::media::testing {

// Makes the next `count` msyncs of file-back-end pools in this process
// fail with errno `err` (as a writeback error reported by msync would).
void FailNextSyncs(int count, int err);

// hold true: msyncs of file-back-end pools in this process wait before
// they begin, until HoldSyncs(false) (a slow device, made deterministic).
void HoldSyncs(bool hold);
// msyncs waiting for HoldSyncs(false).
int HeldSyncs();

// Makes the next `count` Back() calls of file-back-end pools in this
// process fail with errno `err` (as posix_fallocate on a full file system).
void FailNextBacks(int count, int err);

}  // namespace plush::media::testing

#endif  // PLUSH_MEDIA_FAULT_INJECTION_H_
