/* C half of the mlcost driver: a monotonic nanosecond clock that neither allocates nor boxes,
   the result digest (see ocaml-runtime/src/digest.rs for the byte stream it hashes), and the
   move of the protocol off fd 1 so that a program's own prints cannot corrupt it. */
#define CAML_NAME_SPACE
#include <caml/mlvalues.h>
#include <caml/memory.h>
#include <caml/alloc.h>
#include <caml/fail.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

intnat mlcost_now(value unit)
{
  struct timespec ts;
  (void)unit;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (intnat)ts.tv_sec * 1000000000 + (intnat)ts.tv_nsec;
}

value mlcost_now_byte(value unit)
{
  return Val_long(mlcost_now(unit));
}

/* CPU time of this thread: a batch whose wall time exceeds it was descheduled. */
intnat mlcost_cpu_now(value unit)
{
  struct timespec ts;
  (void)unit;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (intnat)ts.tv_sec * 1000000000 + (intnat)ts.tv_nsec;
}

value mlcost_cpu_now_byte(value unit)
{
  return Val_long(mlcost_cpu_now(unit));
}

/* Returns a new descriptor for the original stdout and points fd 1 at stderr. */
value mlcost_take_stdout(value unit)
{
  int fd;
  (void)unit;
  fd = dup(1);
  if (fd < 0 || dup2(2, 1) < 0) caml_failwith("mlcost driver: cannot move stdout");
  return Val_int(fd);
}

#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static inline void fnv_byte(uint64_t *h, unsigned char b)
{
  *h ^= b;
  *h *= FNV_PRIME;
}

static void fnv_word(uint64_t *h, uint64_t w)
{
  int i;
  for (i = 0; i < 8; i++) { fnv_byte(h, (unsigned char)(w & 0xff)); w >>= 8; }
}

static void fnv_double(uint64_t *h, double d)
{
  uint64_t bits;
  memcpy(&bits, &d, sizeof bits);
  fnv_word(h, bits);
}

/* Walks without allocating on the OCaml heap, so no collection can move the value; an
   explicit stack keeps a million-element list from overflowing the C stack. */
value mlcost_digest(value root)
{
  CAMLparam1(root);
  uint64_t h = FNV_OFFSET;
  size_t cap = 4096, top = 0;
  value *stack = malloc(cap * sizeof(value));
  char hex[17];
  if (stack == NULL) caml_raise_out_of_memory();
  stack[top++] = root;
  while (top > 0) {
    value v = stack[--top];
    tag_t tag;
    mlsize_t size, i;
    if (Is_long(v)) {
      fnv_byte(&h, 0x01);
      fnv_word(&h, (uint64_t)(int64_t)Long_val(v));
      continue;
    }
    tag = Tag_val(v);
    size = Wosize_val(v);
    switch (tag) {
    case Double_tag:
      fnv_byte(&h, 0x03);
      fnv_double(&h, Double_val(v));
      break;
    case String_tag:
      size = caml_string_length(v);
      fnv_byte(&h, 0x04);
      fnv_word(&h, (uint64_t)size);
      for (i = 0; i < size; i++) fnv_byte(&h, Byte_u(v, i));
      break;
    case Double_array_tag:
      size = Wosize_val(v) / Double_wosize;
      fnv_byte(&h, 0x05);
      fnv_word(&h, (uint64_t)size);
      for (i = 0; i < size; i++) fnv_double(&h, Double_flat_field(v, i));
      break;
    case Closure_tag:
    case Infix_tag:
      fnv_byte(&h, 0x06);
      break;
    default:
      if (tag < No_scan_tag && tag != Object_tag && tag != Lazy_tag && tag != Forward_tag) {
        fnv_byte(&h, 0x02);
        fnv_byte(&h, (unsigned char)tag);
        fnv_word(&h, (uint64_t)size);
        if (top + size > cap) {
          value *grown;
          while (top + size > cap) cap *= 2;
          grown = realloc(stack, cap * sizeof(value));
          if (grown == NULL) { free(stack); caml_raise_out_of_memory(); }
          stack = grown;
        }
        for (i = size; i > 0; i--) stack[top++] = Field(v, i - 1);
      } else {
        fnv_byte(&h, 0x07);
        fnv_byte(&h, (unsigned char)tag);
      }
    }
  }
  free(stack);
  snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
  CAMLreturn(caml_copy_string(hex));
}
