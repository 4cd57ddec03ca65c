/* replay_main.c --- runs a libFuzzer target without libFuzzer.
 *
 * `make check` links every fuzz target (a file defining
 * LLVMFuzzerTestOneInput) with this driver.  It feeds the target every file
 * of its checked-in corpus, tests/fuzz/corpus/<name>/, then a fixed number
 * of deterministic mutations of them (byte flips, truncations, splices), so
 * the targets run briefly on every check.  `make fuzz` builds the same
 * targets with clang -fsanitize=fuzzer for real, open-ended fuzzing.
 *
 * Usage: fuzz_<name> [ITERATIONS]   (FUZZ_ITERATIONS in the environment
 * also works; default 2000).  The corpus directory is found through
 * $top_srcdir, set by the test harness.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct input_t { uint8_t *data; size_t size; } input_t;

/* xorshift64: reproducible across machines, unlike rand(). */
static uint64_t
next_random(uint64_t *state)
{
  uint64_t x = *state;
  x ^= x << 13; x ^= x >> 7; x ^= x << 17;
  return *state = x;
}

static int
read_file(input_t *in, const char *path)
{
  FILE *f = fopen(path, "rb");
  long len;

  if (!f)
    return -1;
  fseek(f, 0, SEEK_END);
  len = ftell(f);
  fseek(f, 0, SEEK_SET);
  in->data = malloc(len ? (size_t)len : 1);
  in->size = fread(in->data, 1, (size_t)len, f);
  fclose(f);
  return 0;
}

/* Load every regular file of DIR into INPUTS; returns the count. */
static size_t
load_corpus(input_t **inputs, const char *dir)
{
  DIR *d = opendir(dir);
  struct dirent *e;
  size_t n = 0, cap = 16;

  *inputs = malloc(cap * sizeof(**inputs));
  while (d && (e = readdir(d)) != NULL)
    {
      char path[4096];
      if (e->d_name[0] == '.')
        continue;
      snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
      if (n == cap)
        *inputs = realloc(*inputs, (cap *= 2) * sizeof(**inputs));
      if (read_file(&(*inputs)[n], path) == 0)
        n++;
    }
  if (d)
    closedir(d);
  return n;
}

/* One mutation of BASE (and maybe OTHER) into OUT. */
static void
mutate(input_t *out, const input_t *base, const input_t *other,
       uint64_t *rng)
{
  size_t i, flips = 1 + next_random(rng) % 4;

  out->size = base->size;
  memcpy(out->data, base->data, base->size);
  switch (next_random(rng) % 4)
    {
      case 0: /* truncate */
        out->size = out->size ? next_random(rng) % out->size : 0;
        break;
      case 1: /* splice the tail of another input */
        if (other->size && out->size)
          {
            size_t at = next_random(rng) % out->size;
            size_t take = other->size - next_random(rng) % other->size;
            memcpy(out->data + at, other->data + other->size - take,
                   take < base->size - at ? take : base->size - at);
          }
        break;
      default: /* flip bytes */
        for (i = 0; i < flips && out->size; i++)
          out->data[next_random(rng) % out->size] ^=
            (uint8_t)(1 + next_random(rng) % 255);
    }
}

int
main(int argc, char **argv)
{
  const char *top = getenv("top_srcdir");
  const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1
                                           : argv[0];
  const char *iter_env = getenv("FUZZ_ITERATIONS");
  long iterations = argc > 1 ? atol(argv[1])
                  : iter_env ? atol(iter_env) : 2000;
  char dir[4096];
  input_t *inputs, scratch;
  size_t n, i, max = 1;
  uint64_t rng = 0x9e3779b97f4a7c15ULL;
  long k;

  if (strncmp(name, "lt-", 3) == 0)
    name += 3;
  snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", top ? top : ".",
           strncmp(name, "fuzz_", 5) == 0 ? name + 5 : name);
  n = load_corpus(&inputs, dir);
  if (n == 0)
    {
      fprintf(stderr, "%s: empty corpus %s\n", name, dir);
      return 1;
    }
  for (i = 0; i < n; i++)
    {
      LLVMFuzzerTestOneInput(inputs[i].data, inputs[i].size);
      if (inputs[i].size > max)
        max = inputs[i].size;
    }
  scratch.data = malloc(max);
  for (k = 0; k < iterations; k++)
    {
      const input_t *base = &inputs[next_random(&rng) % n];
      const input_t *other = &inputs[next_random(&rng) % n];
      mutate(&scratch, base, other, &rng);
      LLVMFuzzerTestOneInput(scratch.data, scratch.size);
    }
  printf("%s: %zu corpus inputs, %ld mutations, no crash\n", name, n,
         iterations);
  return 0;
}
