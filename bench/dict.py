d = {}
for i in range(100000):
    d["k" + str(i)] = i
total = 0
for i in range(100000):
    total = total + d["k" + str(i)]
print(total)
