// Thrust algorithms on device vectors: a small analytics pipeline (bucket,
// sort by key, reduce by key, scan, statistics) checked on the host.
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/transform_reduce.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "corpus.h"

namespace {

struct Reading {  // a synthetic sensor reading derived from its index
  __host__ __device__ float operator()(int i) const {
    unsigned int h = unsigned(i) * 2654435761u;
    return float(h % 10000) / 100.0f - 50.0f;
  }
};

struct Bucket {  // which of 97 sensors produced reading i
  __host__ __device__ int operator()(int i) const { return int((unsigned(i) * 40503u) % 97u); }
};

struct Square {
  __host__ __device__ double operator()(float x) const { return double(x) * x; }
};

struct Above {
  float threshold;
  __host__ __device__ bool operator()(float x) const { return x > threshold; }
};

}  // namespace

int corpus_thrust() {
  const int n = 1 << 20;
  thrust::device_vector<float> readings(n);
  thrust::device_vector<int> sensors(n);
  thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), readings.begin(),
                    Reading{});
  thrust::transform(thrust::counting_iterator<int>(0), thrust::counting_iterator<int>(n), sensors.begin(),
                    Bucket{});

  // Statistics of all readings.
  double sum = thrust::reduce(readings.begin(), readings.end(), 0.0, thrust::plus<double>());
  double sumsq = thrust::transform_reduce(readings.begin(), readings.end(), Square{}, 0.0, thrust::plus<double>());
  float hi = thrust::reduce(readings.begin(), readings.end(), -1e30f, thrust::maximum<float>());
  long above = thrust::count_if(readings.begin(), readings.end(), Above{40.0f});

  // Per-sensor sums: sort by sensor, reduce by key.
  thrust::device_vector<float> sorted_readings = readings;
  thrust::device_vector<int> keys = sensors;
  thrust::sort_by_key(keys.begin(), keys.end(), sorted_readings.begin());
  thrust::device_vector<int> unique_keys(97);
  thrust::device_vector<double> per_sensor(97);
  auto ends = thrust::reduce_by_key(keys.begin(), keys.end(), sorted_readings.begin(), unique_keys.begin(),
                                    per_sensor.begin(), thrust::equal_to<int>(), thrust::plus<double>());
  int groups = int(ends.first - unique_keys.begin());

  // A running total.
  thrust::device_vector<double> running(n);
  thrust::inclusive_scan(readings.begin(), readings.end(), running.begin(), thrust::plus<double>());
  double last = running.back();

  // Host reference.
  Reading reading;
  Bucket bucket;
  double hsum = 0, hsumsq = 0, habs = 0;
  float hhi = -1e30f;
  long habove = 0;
  std::map<int, double> hsensor, hsensor_abs;
  for (int i = 0; i < n; ++i) {
    float r = reading(i);
    hsum += r;
    habs += std::fabs(r);
    hsumsq += double(r) * r;
    hhi = std::max(hhi, r);
    habove += r > 40.0f;
    hsensor[bucket(i)] += r;
    hsensor_abs[bucket(i)] += std::fabs(r);
  }
  // reduce_by_key and inclusive_scan accumulate in the input's value type
  // (float here), whatever the operator's: their results get float tolerances,
  // relative to the sum of magnitudes (a wrong result is off by far more).
  thrust::host_vector<int> got_keys = unique_keys;
  thrust::host_vector<double> got_sums = per_sensor;
  bool sensors_ok = groups == int(hsensor.size());
  for (int g = 0; g < groups && sensors_ok; ++g)
    sensors_ok = std::fabs(got_sums[g] - hsensor[got_keys[g]]) <= 1e-6 * hsensor_abs[got_keys[g]];
  auto near = [](double a, double b) { return std::fabs(a - b) <= 1e-9 * (1 + std::fabs(b)); };
  bool ok = near(sum, hsum) && near(sumsq, hsumsq) && hi == hhi && above == habove && sensors_ok &&
            std::fabs(last - hsum) <= 1e-6 * habs && cudaGetLastError() == cudaSuccess;
  char detail[128];
  std::snprintf(detail, sizeof(detail), "%d readings: mean %.3f, max %.2f, %ld above 40, %d sensors", n, sum / n,
                hi, above, groups);
  return corpus_report("thrust", ok, detail);
}
