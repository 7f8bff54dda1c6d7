;; The two passes of gaussian.ts's fixed-point Gaussian, eight pixels at a time in 128-bit SIMD.
;; Same integer kernel, same 'reflect' border, same rounding (add half, shift right), so the output
;; is byte-identical to gaussianSmoothPortable: integer SIMD has no machine-dependent results.
;;
;; Pixels are u16 (8-bit input is widened by the caller); sums are i32 lanes and stay below 2^26
;; (16-bit values times weights summing to 2^10). The caller lays out the memory and passes byte
;; offsets; rows of the intermediate and output images are `stride` pixels apart, stride being the
;; width rounded up to a multiple of 8 so that every vector store stays inside its row.
(module
  (memory (export "memory") 1)

  ;; scipy's 'reflect' index (d c b a | a b c d | d c b a) for any i, as reflectIndex in gaussian.ts.
  (func $reflect (param $i i32) (param $n i32) (result i32)
    (block $done
      (loop $again
        (if (i32.lt_s (local.get $i) (i32.const 0))
          (then
            (local.set $i (i32.sub (i32.const -1) (local.get $i)))
            (br $again)))
        (br_if $done (i32.lt_s (local.get $i) (local.get $n)))
        (local.set $i
          (i32.sub (i32.sub (i32.shl (local.get $n) (i32.const 1)) (local.get $i)) (i32.const 1)))
        (br $again)))
    (local.get $i))

  ;; Horizontal pass: src rows are `width` pixels apart, dst rows `stride` apart; $pad is scratch
  ;; for one reflected row (stride + 2 * radius + 8 pixels); $weights holds radius + 1 i32.
  (func (export "horizontal")
    (param $src i32) (param $dst i32) (param $width i32) (param $height i32) (param $stride i32)
    (param $pad i32) (param $weights i32) (param $radius i32) (param $shift i32)
    (local $y i32) (local $i i32) (local $x i32) (local $k i32) (local $row i32) (local $out i32)
    (local $centre i32) (local $w v128) (local $lo v128) (local $hi v128) (local $half v128)
    (local $left i32) (local $right i32)
    (local.set $half (i32x4.splat (i32.shl (i32.const 1) (i32.sub (local.get $shift) (i32.const 1)))))
    (block $rows_done
      (loop $rows
        (br_if $rows_done (i32.ge_u (local.get $y) (local.get $height)))
        (local.set $row
          (i32.add (local.get $src) (i32.shl (i32.mul (local.get $y) (local.get $width)) (i32.const 1))))
        ;; The reflected row: radius mirrored pixels, the row, radius mirrored pixels.
        (local.set $i (i32.const 0))
        (block $borders_done
          (loop $borders
            (br_if $borders_done (i32.ge_u (local.get $i) (local.get $radius)))
            (i32.store16
              (i32.add (local.get $pad) (i32.shl (local.get $i) (i32.const 1)))
              (i32.load16_u
                (i32.add (local.get $row)
                  (i32.shl
                    (call $reflect (i32.sub (local.get $i) (local.get $radius)) (local.get $width))
                    (i32.const 1)))))
            (i32.store16
              (i32.add (local.get $pad)
                (i32.shl (i32.add (i32.add (local.get $radius) (local.get $width)) (local.get $i))
                  (i32.const 1)))
              (i32.load16_u
                (i32.add (local.get $row)
                  (i32.shl
                    (call $reflect (i32.add (local.get $width) (local.get $i)) (local.get $width))
                    (i32.const 1)))))
            (local.set $i (i32.add (local.get $i) (i32.const 1)))
            (br $borders)))
        (memory.copy
          (i32.add (local.get $pad) (i32.shl (local.get $radius) (i32.const 1)))
          (local.get $row)
          (i32.shl (local.get $width) (i32.const 1)))
        ;; Eight outputs per step: two i32x4 accumulators, narrowed back to u16 together.
        (local.set $out
          (i32.add (local.get $dst) (i32.shl (i32.mul (local.get $y) (local.get $stride)) (i32.const 1))))
        (local.set $x (i32.const 0))
        (block $cols_done
          (loop $cols
            (br_if $cols_done (i32.ge_u (local.get $x) (local.get $stride)))
            (local.set $centre
              (i32.add (local.get $pad)
                (i32.shl (i32.add (local.get $radius) (local.get $x)) (i32.const 1))))
            (local.set $w (v128.load32_splat (local.get $weights)))
            (local.set $lo (i32x4.mul (v128.load16x4_u (local.get $centre)) (local.get $w)))
            (local.set $hi (i32x4.mul (v128.load16x4_u offset=8 (local.get $centre)) (local.get $w)))
            (local.set $k (i32.const 1))
            (block $taps_done
              (loop $taps
                (br_if $taps_done (i32.gt_u (local.get $k) (local.get $radius)))
                (local.set $w
                  (v128.load32_splat
                    (i32.add (local.get $weights) (i32.shl (local.get $k) (i32.const 2)))))
                (local.set $left (i32.sub (local.get $centre) (i32.shl (local.get $k) (i32.const 1))))
                (local.set $right (i32.add (local.get $centre) (i32.shl (local.get $k) (i32.const 1))))
                (local.set $lo
                  (i32x4.add (local.get $lo)
                    (i32x4.mul (local.get $w)
                      (i32x4.add (v128.load16x4_u (local.get $left)) (v128.load16x4_u (local.get $right))))))
                (local.set $hi
                  (i32x4.add (local.get $hi)
                    (i32x4.mul (local.get $w)
                      (i32x4.add
                        (v128.load16x4_u offset=8 (local.get $left))
                        (v128.load16x4_u offset=8 (local.get $right))))))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $taps)))
            (v128.store
              (i32.add (local.get $out) (i32.shl (local.get $x) (i32.const 1)))
              (i16x8.narrow_i32x4_u
                (i32x4.shr_u (i32x4.add (local.get $lo) (local.get $half)) (local.get $shift))
                (i32x4.shr_u (i32x4.add (local.get $hi) (local.get $half)) (local.get $shift))))
            (local.set $x (i32.add (local.get $x) (i32.const 8)))
            (br $cols)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $rows))))

  ;; Vertical pass on stride-wide rows, src to dst; $rows is scratch for 2 * radius + 1 i32 row
  ;; offsets (the reflected rows above and below the current one).
  (func (export "vertical")
    (param $src i32) (param $dst i32) (param $stride i32) (param $height i32)
    (param $rows i32) (param $weights i32) (param $radius i32) (param $shift i32)
    (local $y i32) (local $k i32) (local $x i32) (local $bytes i32) (local $out i32)
    (local $w v128) (local $lo v128) (local $hi v128) (local $half v128)
    (local $up i32) (local $down i32) (local $slot i32)
    (local.set $half (i32x4.splat (i32.shl (i32.const 1) (i32.sub (local.get $shift) (i32.const 1)))))
    (local.set $bytes (i32.shl (local.get $stride) (i32.const 1)))
    (block $rows_done
      (loop $rows_loop
        (br_if $rows_done (i32.ge_u (local.get $y) (local.get $height)))
        ;; rows[0] = this row; rows[2k - 1] and rows[2k] = the rows k above and k below.
        (i32.store (local.get $rows)
          (i32.add (local.get $src) (i32.mul (local.get $y) (local.get $bytes))))
        (local.set $k (i32.const 1))
        (block $offsets_done
          (loop $offsets
            (br_if $offsets_done (i32.gt_u (local.get $k) (local.get $radius)))
            (local.set $slot
              (i32.add (local.get $rows) (i32.sub (i32.shl (local.get $k) (i32.const 3)) (i32.const 4))))
            (i32.store (local.get $slot)
              (i32.add (local.get $src)
                (i32.mul
                  (call $reflect (i32.sub (local.get $y) (local.get $k)) (local.get $height))
                  (local.get $bytes))))
            (i32.store offset=4 (local.get $slot)
              (i32.add (local.get $src)
                (i32.mul
                  (call $reflect (i32.add (local.get $y) (local.get $k)) (local.get $height))
                  (local.get $bytes))))
            (local.set $k (i32.add (local.get $k) (i32.const 1)))
            (br $offsets)))
        (local.set $out (i32.add (local.get $dst) (i32.mul (local.get $y) (local.get $bytes))))
        (local.set $x (i32.const 0))
        (block $cols_done
          (loop $cols
            (br_if $cols_done (i32.ge_u (local.get $x) (local.get $bytes)))
            (local.set $w (v128.load32_splat (local.get $weights)))
            (local.set $up (i32.add (i32.load (local.get $rows)) (local.get $x)))
            (local.set $lo (i32x4.mul (v128.load16x4_u (local.get $up)) (local.get $w)))
            (local.set $hi (i32x4.mul (v128.load16x4_u offset=8 (local.get $up)) (local.get $w)))
            (local.set $k (i32.const 1))
            (block $taps_done
              (loop $taps
                (br_if $taps_done (i32.gt_u (local.get $k) (local.get $radius)))
                (local.set $w
                  (v128.load32_splat
                    (i32.add (local.get $weights) (i32.shl (local.get $k) (i32.const 2)))))
                (local.set $slot
                  (i32.add (local.get $rows) (i32.sub (i32.shl (local.get $k) (i32.const 3)) (i32.const 4))))
                (local.set $up (i32.add (i32.load (local.get $slot)) (local.get $x)))
                (local.set $down (i32.add (i32.load offset=4 (local.get $slot)) (local.get $x)))
                (local.set $lo
                  (i32x4.add (local.get $lo)
                    (i32x4.mul (local.get $w)
                      (i32x4.add (v128.load16x4_u (local.get $up)) (v128.load16x4_u (local.get $down))))))
                (local.set $hi
                  (i32x4.add (local.get $hi)
                    (i32x4.mul (local.get $w)
                      (i32x4.add
                        (v128.load16x4_u offset=8 (local.get $up))
                        (v128.load16x4_u offset=8 (local.get $down))))))
                (local.set $k (i32.add (local.get $k) (i32.const 1)))
                (br $taps)))
            (v128.store
              (i32.add (local.get $out) (local.get $x))
              (i16x8.narrow_i32x4_u
                (i32x4.shr_u (i32x4.add (local.get $lo) (local.get $half)) (local.get $shift))
                (i32x4.shr_u (i32x4.add (local.get $hi) (local.get $half)) (local.get $shift))))
            (local.set $x (i32.add (local.get $x) (i32.const 16)))
            (br $cols)))
        (local.set $y (i32.add (local.get $y) (i32.const 1)))
        (br $rows_loop)))))
