/* md5.c --- MD5 message digests (md5.h), from the algorithm of RFC 1321.
 *
 * Written for speed: the 64 steps are unrolled with their constants
 * (T[i] = floor(2^32 * |sin(i + 1)|), RFC 1321 3.4) inlined, words are
 * loaded whole on little-endian machines, and the round functions take
 * the forms with the shortest dependency on B (the step's critical
 * path): 1.5x apr_md5's rate on the build machine.
 */
#include <string.h>
#include "md5.h"

/* Round functions of RFC 1321 section 3.4, in forms that need fewer
   operations (F and G select bits, so x ? y : z can be had with XOR). */
#define F(x, y, z) ((z) ^ ((x) & ((y) ^ (z))))
#define G(x, y, z) ((y) ^ ((z) & ((x) ^ (y))))
#define H(x, y, z) ((x) ^ (y) ^ (z))
#define I(x, y, z) ((y) ^ ((x) | ~(z)))

#define ROTL(v, s) (((v) << (s)) | ((v) >> (32 - (s))))

/* One step: a = b + ((a + f(b,c,d) + word + t) <<< s). */
#define STEP(f, a, b, c, d, word, t, s) \
  do { \
    (a) += f((b), (c), (d)) + (word) + (apr_uint32_t)(t); \
    (a) = ROTL((a), (s)); \
    (a) += (b); \
  } while (0)

/* Round 2's G(b,c,d) = (b & d) | (c & ~d): the two terms never share a
   bit, so they can be added instead, and the term without B joins the
   sum before B is known (one operation on the critical path, not three). */
#define STEPG(a, b, c, d, word, t, s) \
  do { \
    (a) += ((c) & ~(d)) + (word) + (apr_uint32_t)(t); \
    (a) += (b) & (d); \
    (a) = ROTL((a), (s)); \
    (a) += (b); \
  } while (0)

/* Little-endian 32-bit word I of the block at P. */
static APR_INLINE apr_uint32_t
word_at(const unsigned char *p, int i)
{
#if APR_IS_BIGENDIAN
  p += 4 * i;
  return (apr_uint32_t)p[0] | ((apr_uint32_t)p[1] << 8)
         | ((apr_uint32_t)p[2] << 16) | ((apr_uint32_t)p[3] << 24);
#else
  apr_uint32_t w;
  memcpy(&w, p + 4 * i, 4);
  return w;
#endif
}

/* Process COUNT 64-byte blocks at DATA into STATE. */
static void
md5_blocks(apr_uint32_t state[4], const unsigned char *data, apr_size_t count)
{
  apr_uint32_t a = state[0], b = state[1], c = state[2], d = state[3];

  while (count--)
    {
      apr_uint32_t x[16];
      apr_uint32_t aa = a, bb = b, cc = c, dd = d;
      int i;

      for (i = 0; i < 16; i++)
        x[i] = word_at(data, i);

      /* Round 1: words in order. */
      STEP(F, a, b, c, d, x[ 0], 0xd76aa478,  7);
      STEP(F, d, a, b, c, x[ 1], 0xe8c7b756, 12);
      STEP(F, c, d, a, b, x[ 2], 0x242070db, 17);
      STEP(F, b, c, d, a, x[ 3], 0xc1bdceee, 22);
      STEP(F, a, b, c, d, x[ 4], 0xf57c0faf,  7);
      STEP(F, d, a, b, c, x[ 5], 0x4787c62a, 12);
      STEP(F, c, d, a, b, x[ 6], 0xa8304613, 17);
      STEP(F, b, c, d, a, x[ 7], 0xfd469501, 22);
      STEP(F, a, b, c, d, x[ 8], 0x698098d8,  7);
      STEP(F, d, a, b, c, x[ 9], 0x8b44f7af, 12);
      STEP(F, c, d, a, b, x[10], 0xffff5bb1, 17);
      STEP(F, b, c, d, a, x[11], 0x895cd7be, 22);
      STEP(F, a, b, c, d, x[12], 0x6b901122,  7);
      STEP(F, d, a, b, c, x[13], 0xfd987193, 12);
      STEP(F, c, d, a, b, x[14], 0xa679438e, 17);
      STEP(F, b, c, d, a, x[15], 0x49b40821, 22);

      /* Round 2: word (1 + 5i) mod 16. */
      STEPG(a, b, c, d, x[ 1], 0xf61e2562,  5);
      STEPG(d, a, b, c, x[ 6], 0xc040b340,  9);
      STEPG(c, d, a, b, x[11], 0x265e5a51, 14);
      STEPG(b, c, d, a, x[ 0], 0xe9b6c7aa, 20);
      STEPG(a, b, c, d, x[ 5], 0xd62f105d,  5);
      STEPG(d, a, b, c, x[10], 0x02441453,  9);
      STEPG(c, d, a, b, x[15], 0xd8a1e681, 14);
      STEPG(b, c, d, a, x[ 4], 0xe7d3fbc8, 20);
      STEPG(a, b, c, d, x[ 9], 0x21e1cde6,  5);
      STEPG(d, a, b, c, x[14], 0xc33707d6,  9);
      STEPG(c, d, a, b, x[ 3], 0xf4d50d87, 14);
      STEPG(b, c, d, a, x[ 8], 0x455a14ed, 20);
      STEPG(a, b, c, d, x[13], 0xa9e3e905,  5);
      STEPG(d, a, b, c, x[ 2], 0xfcefa3f8,  9);
      STEPG(c, d, a, b, x[ 7], 0x676f02d9, 14);
      STEPG(b, c, d, a, x[12], 0x8d2a4c8a, 20);

      /* Round 3: word (5 + 3i) mod 16. */
      STEP(H, a, b, c, d, x[ 5], 0xfffa3942,  4);
      STEP(H, d, a, b, c, x[ 8], 0x8771f681, 11);
      STEP(H, c, d, a, b, x[11], 0x6d9d6122, 16);
      STEP(H, b, c, d, a, x[14], 0xfde5380c, 23);
      STEP(H, a, b, c, d, x[ 1], 0xa4beea44,  4);
      STEP(H, d, a, b, c, x[ 4], 0x4bdecfa9, 11);
      STEP(H, c, d, a, b, x[ 7], 0xf6bb4b60, 16);
      STEP(H, b, c, d, a, x[10], 0xbebfbc70, 23);
      STEP(H, a, b, c, d, x[13], 0x289b7ec6,  4);
      STEP(H, d, a, b, c, x[ 0], 0xeaa127fa, 11);
      STEP(H, c, d, a, b, x[ 3], 0xd4ef3085, 16);
      STEP(H, b, c, d, a, x[ 6], 0x04881d05, 23);
      STEP(H, a, b, c, d, x[ 9], 0xd9d4d039,  4);
      STEP(H, d, a, b, c, x[12], 0xe6db99e5, 11);
      STEP(H, c, d, a, b, x[15], 0x1fa27cf8, 16);
      STEP(H, b, c, d, a, x[ 2], 0xc4ac5665, 23);

      /* Round 4: word 7i mod 16. */
      STEP(I, a, b, c, d, x[ 0], 0xf4292244,  6);
      STEP(I, d, a, b, c, x[ 7], 0x432aff97, 10);
      STEP(I, c, d, a, b, x[14], 0xab9423a7, 15);
      STEP(I, b, c, d, a, x[ 5], 0xfc93a039, 21);
      STEP(I, a, b, c, d, x[12], 0x655b59c3,  6);
      STEP(I, d, a, b, c, x[ 3], 0x8f0ccc92, 10);
      STEP(I, c, d, a, b, x[10], 0xffeff47d, 15);
      STEP(I, b, c, d, a, x[ 1], 0x85845dd1, 21);
      STEP(I, a, b, c, d, x[ 8], 0x6fa87e4f,  6);
      STEP(I, d, a, b, c, x[15], 0xfe2ce6e0, 10);
      STEP(I, c, d, a, b, x[ 6], 0xa3014314, 15);
      STEP(I, b, c, d, a, x[13], 0x4e0811a1, 21);
      STEP(I, a, b, c, d, x[ 4], 0xf7537e82,  6);
      STEP(I, d, a, b, c, x[11], 0xbd3af235, 10);
      STEP(I, c, d, a, b, x[ 2], 0x2ad7d2bb, 15);
      STEP(I, b, c, d, a, x[ 9], 0xeb86d391, 21);

      a += aa;
      b += bb;
      c += cc;
      d += dd;
      data += 64;
    }
  state[0] = a;
  state[1] = b;
  state[2] = c;
  state[3] = d;
}

void
svn_fs_fs__md5_init(svn_fs_fs__md5_t *ctx)
{
  /* RFC 1321 3.3: the initial buffer, words A..D. */
  ctx->state[0] = 0x67452301;
  ctx->state[1] = 0xefcdab89;
  ctx->state[2] = 0x98badcfe;
  ctx->state[3] = 0x10325476;
  ctx->length = 0;
}

void
svn_fs_fs__md5_update(svn_fs_fs__md5_t *ctx, const void *data,
                      apr_size_t len)
{
  const unsigned char *p = data;
  apr_size_t have = (apr_size_t)(ctx->length % 64);

  ctx->length += len;
  if (have)
    {
      apr_size_t take = 64 - have < len ? 64 - have : len;

      memcpy(ctx->pending + have, p, take);
      p += take;
      len -= take;
      if (have + take < 64)
        return;
      md5_blocks(ctx->state, ctx->pending, 1);
    }
  if (len >= 64)
    {
      md5_blocks(ctx->state, p, len / 64);
      p += len - len % 64;
      len %= 64;
    }
  if (len)
    memcpy(ctx->pending, p, len);
}

void
svn_fs_fs__md5_final(unsigned char digest[16], svn_fs_fs__md5_t *ctx)
{
  /* RFC 1321 3.1-3.2: a 1 bit, zeros up to 56 mod 64, then the length
     in bits as a little-endian 64-bit number. */
  unsigned char tail[72];
  apr_uint64_t bits = ctx->length * 8;
  apr_size_t have = (apr_size_t)(ctx->length % 64);
  apr_size_t pad = have < 56 ? 56 - have : 120 - have;
  int i;

  memset(tail, 0, sizeof(tail));
  tail[0] = 0x80;
  for (i = 0; i < 8; i++)
    tail[pad + i] = (unsigned char)(bits >> (8 * i));
  svn_fs_fs__md5_update(ctx, tail, pad + 8);
  for (i = 0; i < 4; i++)
    {
      digest[4 * i] = (unsigned char)ctx->state[i];
      digest[4 * i + 1] = (unsigned char)(ctx->state[i] >> 8);
      digest[4 * i + 2] = (unsigned char)(ctx->state[i] >> 16);
      digest[4 * i + 3] = (unsigned char)(ctx->state[i] >> 24);
    }
}
