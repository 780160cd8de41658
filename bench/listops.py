xs = []
for i in range(300000):
    xs.append(i)
total = 0
for r in range(5):
    total = total + sum(filter(lambda x: x % 3 == 0, map(lambda x: x * 2, xs)))
print(total)
