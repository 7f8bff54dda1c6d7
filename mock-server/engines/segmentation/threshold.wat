;; The two pixel passes of the Otsu threshold step (otsu.ts, threshold.ts) in WebAssembly: the
;; full histogram of a u16 plane, then the 0/1 mask, sixteen pixels per SIMD step. Integer counts
;; and integer compares only, so the results are exactly those of the JavaScript references.
;;
;; The caller lays out the memory and passes byte offsets: the pixels (8-bit input widened to u16),
;; padded to a multiple of 16 pixels; the histogram scratch, 4 x 65536 i32; the mask, padded alike.
(module
  (memory (export "memory") 1)

  ;; Counts $n pixels into four interleaved tables (consecutive pixels of a smoothed image are often
  ;; equal, and one table would make each increment wait for the previous store to the same bin),
  ;; then adds the tables into the first: $hist[v] = number of pixels of value v.
  (func (export "histogram") (param $src i32) (param $n i32) (param $hist i32)
    (local $p i32) (local $end i32) (local $slot i32) (local $b i32)
    (memory.fill (local.get $hist) (i32.const 0) (i32.const 1048576))
    (local.set $p (local.get $src))
    ;; Four pixels per step up to the last whole group of four.
    (local.set $end (i32.add (local.get $src) (i32.shl (i32.and (local.get $n) (i32.const -4)) (i32.const 1))))
    (block $quads_done
      (loop $quads
        (br_if $quads_done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $slot (i32.add (local.get $hist) (i32.shl (i32.load16_u (local.get $p)) (i32.const 2))))
        (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
        (local.set $slot
          (i32.add (local.get $hist) (i32.shl (i32.load16_u offset=2 (local.get $p)) (i32.const 2))))
        (i32.store offset=262144 (local.get $slot)
          (i32.add (i32.load offset=262144 (local.get $slot)) (i32.const 1)))
        (local.set $slot
          (i32.add (local.get $hist) (i32.shl (i32.load16_u offset=4 (local.get $p)) (i32.const 2))))
        (i32.store offset=524288 (local.get $slot)
          (i32.add (i32.load offset=524288 (local.get $slot)) (i32.const 1)))
        (local.set $slot
          (i32.add (local.get $hist) (i32.shl (i32.load16_u offset=6 (local.get $p)) (i32.const 2))))
        (i32.store offset=786432 (local.get $slot)
          (i32.add (i32.load offset=786432 (local.get $slot)) (i32.const 1)))
        (local.set $p (i32.add (local.get $p) (i32.const 8)))
        (br $quads)))
    ;; The last 0-3 pixels into the first table.
    (local.set $end (i32.add (local.get $src) (i32.shl (local.get $n) (i32.const 1))))
    (block $rest_done
      (loop $rest
        (br_if $rest_done (i32.ge_u (local.get $p) (local.get $end)))
        (local.set $slot (i32.add (local.get $hist) (i32.shl (i32.load16_u (local.get $p)) (i32.const 2))))
        (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
        (local.set $p (i32.add (local.get $p) (i32.const 2)))
        (br $rest)))
    ;; Four bins per step: table 0 += tables 1, 2 and 3.
    (local.set $b (local.get $hist))
    (local.set $end (i32.add (local.get $hist) (i32.const 262144)))
    (block $merge_done
      (loop $merge
        (br_if $merge_done (i32.ge_u (local.get $b) (local.get $end)))
        (v128.store (local.get $b)
          (i32x4.add
            (i32x4.add (v128.load (local.get $b)) (v128.load offset=262144 (local.get $b)))
            (i32x4.add (v128.load offset=524288 (local.get $b)) (v128.load offset=786432 (local.get $b)))))
        (local.set $b (i32.add (local.get $b) (i32.const 16)))
        (br $merge))))

  ;; $dst[i] = 1 where $src[i] > $threshold, else 0, for $n pixels ($n a multiple of 16); with
  ;; $dark nonzero the complement (value <= threshold). Compares are unsigned 16-bit.
  (func (export "mask")
    (param $src i32) (param $n i32) (param $threshold i32) (param $dark i32) (param $dst i32)
    (local $p i32) (local $q i32) (local $end i32) (local $t v128) (local $flip v128) (local $one v128)
    (local.set $t (i16x8.splat (local.get $threshold)))
    (local.set $flip (i8x16.splat (i32.sub (i32.const 0) (i32.ne (local.get $dark) (i32.const 0)))))
    (local.set $one (i8x16.splat (i32.const 1)))
    (local.set $p (local.get $src))
    (local.set $q (local.get $dst))
    (local.set $end (i32.add (local.get $dst) (local.get $n)))
    (block $done
      (loop $step
        (br_if $done (i32.ge_u (local.get $q) (local.get $end)))
        ;; Each compare gives 0 or -1 per u16 lane; narrowing keeps 0 or -1 per byte.
        (v128.store (local.get $q)
          (v128.and
            (v128.xor
              (i8x16.narrow_i16x8_s
                (i16x8.gt_u (v128.load (local.get $p)) (local.get $t))
                (i16x8.gt_u (v128.load offset=16 (local.get $p)) (local.get $t)))
              (local.get $flip))
            (local.get $one)))
        (local.set $p (i32.add (local.get $p) (i32.const 32)))
        (local.set $q (i32.add (local.get $q) (i32.const 16)))
        (br $step)))))
