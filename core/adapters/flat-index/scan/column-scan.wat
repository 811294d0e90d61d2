;; Dot products of one int8 query with many int8 rows, reading only the query's non-zero
;; dimensions. Rows are stored column by column in blocks of 4,096: block b holds, for each
;; dimension j, the 4,096 rows' values of j side by side (4,096 bytes at b * dims * 4096 + j * 4096).
;; A query with nnz non-zero dimensions reads nnz runs of 4,096 bytes per block, each in order (so
;; the processor's prefetching keeps up), adding into 4,096 sums that stay in the L1 cache. The
;; built-in lexical embedder's queries have ~6% non-zero dimensions.
;;
;; Source of column-scan.wasm.ts (`npm run build:wasm`; a test checks the two agree).
(module
  (memory (export "memory") 1)

  ;; scan(data, dims, nz, q, nnz, blocks, count, out)
  ;;   data:   address of block 0
  ;;   nz:     nnz i32 byte offsets of the dimensions within a block (j * 4096)
  ;;   q:      nnz i32 query values (int8 range), in the same order
  ;;   blocks: count i32 block numbers to scan
  ;;   out:    count * 4096 i32 dot products, the rows of the i-th listed block at out + i * 16384
  (func (export "scan")
    (param $data i32) (param $dims i32) (param $nz i32) (param $q i32) (param $nnz i32)
    (param $blocks i32) (param $count i32) (param $out i32)
    (local $i i32) (local $base i32) (local $acc i32) (local $k i32) (local $col i32) (local $g i32) (local $p i32)
    (local $qv v128) (local $v v128) (local $w v128)
    (block $blocksDone
      (loop $eachBlock
        (br_if $blocksDone (i32.ge_u (local.get $i) (local.get $count)))
        (local.set $base
          (i32.add (local.get $data)
            (i32.mul (i32.load (i32.add (local.get $blocks) (i32.shl (local.get $i) (i32.const 2))))
                     (i32.shl (local.get $dims) (i32.const 12)))))
        (local.set $acc (i32.add (local.get $out) (i32.shl (local.get $i) (i32.const 14))))
        ;; zero the block's sums
        (local.set $g (i32.const 0))
        (loop $zero
          (v128.store (i32.add (local.get $acc) (local.get $g)) (v128.const i32x4 0 0 0 0))
          (local.set $g (i32.add (local.get $g) (i32.const 16)))
          (br_if $zero (i32.lt_u (local.get $g) (i32.const 16384))))
        (local.set $k (i32.const 0))
        (block $dimsDone
          (loop $eachDim
            (br_if $dimsDone (i32.ge_u (local.get $k) (local.get $nnz)))
            (local.set $col
              (i32.add (local.get $base)
                       (i32.load (i32.add (local.get $nz) (i32.shl (local.get $k) (i32.const 2))))))
            (local.set $qv (i16x8.splat (i32.load (i32.add (local.get $q) (i32.shl (local.get $k) (i32.const 2))))))
            ;; 16 rows at a time: sums of rows g..g+15 at acc + 4g
            (local.set $g (i32.const 0))
            (loop $eachRows
              (local.set $v (v128.load (i32.add (local.get $col) (local.get $g))))
              (local.set $w (i16x8.extend_low_i8x16_s (local.get $v)))
              (local.set $p (i32.add (local.get $acc) (i32.shl (local.get $g) (i32.const 2))))
              (v128.store offset=0 (local.get $p)
                (i32x4.add (v128.load offset=0 (local.get $p)) (i32x4.extmul_low_i16x8_s (local.get $w) (local.get $qv))))
              (v128.store offset=16 (local.get $p)
                (i32x4.add (v128.load offset=16 (local.get $p)) (i32x4.extmul_high_i16x8_s (local.get $w) (local.get $qv))))
              (local.set $w (i16x8.extend_high_i8x16_s (local.get $v)))
              (v128.store offset=32 (local.get $p)
                (i32x4.add (v128.load offset=32 (local.get $p)) (i32x4.extmul_low_i16x8_s (local.get $w) (local.get $qv))))
              (v128.store offset=48 (local.get $p)
                (i32x4.add (v128.load offset=48 (local.get $p)) (i32x4.extmul_high_i16x8_s (local.get $w) (local.get $qv))))
              (local.set $g (i32.add (local.get $g) (i32.const 16)))
              (br_if $eachRows (i32.lt_u (local.get $g) (i32.const 4096))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $eachDim)))
        (local.set $i (i32.add (local.get $i) (i32.const 1)))
        (br $eachBlock)))))
