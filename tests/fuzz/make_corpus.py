#!/usr/bin/env python3
# Copyright 2026 The Plush Authors. Licensed under the Apache License 2.0.
#
# Writes the seed corpus of the damaged-pool fuzzer (tests/fuzz/corpus/):
# one small edit script per kind of damage, in the input format documented
# in tests/fuzz/pool_fuzz_target.h. Deterministic; rerun it after changing
# that format, and commit the result.
import os
import struct

# Edit kinds and regions (pool_fuzz_target.h).
FLIP, SET_BYTE, SET_WORD, ADD, ZERO_LINE, COPY_LINE, TRUNCATE = range(7)
SUPERBLOCK, ROOT, CHUNK_STATE, LOG, DIRECTORY, HEAP, IMAGE = range(7)
GET, PUT, DELETE, CHECKPOINT, VERIFY = range(5)
# Indexes into kInteresting.
ZERO, ONE, SIZE_33 = 0, 1, 14
HUGE, ALL_ONES = 26, 27


def edit(kind, region, offset, arg=0):
    return struct.pack('<BBIH', kind, region, offset & 0xFFFFFFFF, arg & 0xFFFF)


def directory(level, entry, byte):
    """Region-4 offset of a byte of a directory entry (0-based level index)."""
    return level << 24 | (entry * 512 + byte)


def ops(*pairs):
    return b'\xff' + b''.join(struct.pack('<BB', k, key) for k, key in pairs)


SEEDS = {
    'undamaged': b'',
    'superblock_magic_flip': edit(FLIP, SUPERBLOCK, 0, 0),
    'superblock_version_high': edit(SET_WORD, SUPERBLOCK, 8, HUGE),
    'superblock_checksum_flip': edit(FLIP, SUPERBLOCK, 136, 5),
    'root_mark_lowered': edit(ADD, ROOT, 0, -4096),
    'root_mark_raised': edit(ADD, ROOT, 0, 4096),
    'root_level_count_lowered': edit(ADD, ROOT, 8, -1),
    'root_descriptor_flip': edit(FLIP, ROOT, 64 + 16, 2),
    # Level 2's descriptor over level 1's: valid checksum, wrong entry count
    # (crashed a failed Open in ~DBImpl until f6c5ff5).
    'root_descriptor_copied': edit(COPY_LINE, ROOT, 64, 1),
    'chunk_check_zero': edit(SET_BYTE, CHUNK_STATE, 0, 0x00),
    'chunk_in_use_flip': edit(FLIP, CHUNK_STATE, 8, 2),
    'chunk_seq_bumped': edit(ADD, CHUNK_STATE, 16, 0x100),
    'log_entries_zeroed': edit(ZERO_LINE, LOG, 64),
    'log_entry_copied': edit(COPY_LINE, LOG, 64, 70),
    'log_entry_check_flip': edit(FLIP, LOG, 64 + 7, 7),
    'entry_size_over_capacity': edit(SET_WORD, DIRECTORY, directory(0, 0, 256), SIZE_33),
    'entry_epoch_huge': edit(SET_WORD, DIRECTORY, directory(0, 1, 256), HUGE),
    'entry_bucket_ref_misaligned': edit(ADD, DIRECTORY, directory(0, 2, 384), 8),
    'entry_spare_ref_junk': edit(SET_WORD, DIRECTORY, directory(1, 0, 392), ONE),
    'entry_filter_zeroed': edit(ZERO_LINE, DIRECTORY, directory(0, 3, 0)),
    'entry_flags_flip': edit(FLIP, DIRECTORY, directory(2, 0, 320), 0),
    'entry_copied_over_neighbour': edit(COPY_LINE, DIRECTORY, directory(0, 0, 256), 8),
    'bucket_key_flip': edit(FLIP, HEAP, 4096 + 8, 1),
    'bucket_line_zeroed': edit(ZERO_LINE, HEAP, 8192),
    'truncated_in_heap': edit(TRUNCATE, HEAP, 8192),
    'truncated_in_log': edit(TRUNCATE, LOG, 100),
    'truncated_to_nothing': edit(TRUNCATE, IMAGE, 0),
    'image_word_all_ones': edit(SET_WORD, IMAGE, 40000, ALL_ONES),
    'several_edits': (edit(FLIP, DIRECTORY, directory(0, 1, 260), 1) +
                      edit(ADD, ROOT, 0, -256) + edit(FLIP, LOG, 200, 3)),
    'ops_after_damage': (edit(SET_WORD, DIRECTORY, directory(0, 0, 392), ONE) +
                         ops((PUT, 1), (PUT, 2), (GET, 1), (CHECKPOINT, 0),
                             (DELETE, 2), (VERIFY, 0), (GET, 2))),
    'ops_on_undamaged_pool': ops(*[(PUT, k) for k in range(40)], (CHECKPOINT, 0),
                                 (VERIFY, 0)),
    # Found by libFuzzer: logs that recovery rejects as Corruption after
    # it migrated an overflowing entry (recovery now checks that every
    # entry's kept records can be placed before it writes).
    'log_epoch_overflow_after_a_migration': bytes.fromhex(
        '0503414000006666666666666666666666666666666666666666666666666666'
        '6666666666666666666666666666666666666666666666666666666666666666'
        '6666666666666666666666666600003232824600'),
    # Found by libFuzzer (2026-11-29): recovery migrated DRAM entries whose
    # replayed records overflowed them, then met an invalid bucket
    # reference in a later entry's subtree and failed Open, having changed
    # the pool. Recovery now checks those subtrees before it writes.
    'found_failed_open_after_recovery_migrations': bytes.fromhex(
        '010303c503030303030303030303030000b3b3b3b3b3b3b3b8c3b30001000eb3'
        'b3b3b3b3b3b3b3b3f3b3b3b3b3b3b3b3b3b3b3b3b3000200'),
    # Found by libFuzzer (2026-11-29): the level count lowered to 0 and the
    # allocation mark by 6,144 bytes; recovery rebuilt level 1 over the old
    # levels' space and failed Open, having changed the pool. Open now
    # checks the two root counters against what a crash can leave.
    'found_lowered_level_count_and_mark': bytes.fromhex(
        '03080000000000e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8'
        'e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8e8f001080000'
        '10010800ffff0000000000ffff'),
}


def main():
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'corpus')
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        os.remove(os.path.join(out, name))
    for name, data in SEEDS.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
    print(f'{len(SEEDS)} seeds, {sum(map(len, SEEDS.values()))} bytes in {out}')


if __name__ == '__main__':
    main()
