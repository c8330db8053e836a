"""The reference tables of the synthetic inpatient registry (``workbench.samples.registry`` generates it from
them): fictional districts, ethnicity shares and groups, the ICD-10 chapters with their seasonality, and the
diagnosis codes with the age, sex, stay and cost each is drawn with."""

from __future__ import annotations

# prefix (first two postal digits; the first digit is the region), name, population (thousands),
# rural?, centroid latitude, longitude
DISTRICTS = [
    ("10", "Harbour City Centre", 260, False, 45.4215, -75.6972),
    ("11", "Harbour City West", 180, False, 45.3496, -75.7870),
    ("12", "Harbour City East", 150, False, 45.4398, -75.5821),
    ("13", "Harbour City South", 120, False, 45.2890, -75.6815),
    ("20", "Riverton", 90, False, 45.0213, -74.7303),
    ("21", "Riverton Valley", 35, True, 45.1508, -74.9521),
    ("30", "Lakeside", 70, False, 44.2312, -76.4860),
    ("31", "Lakeside North", 25, True, 44.6009, -76.7024),
    ("40", "Highland", 20, True, 45.8316, -77.1107),
    ("41", "Highland Forest", 10, True, 46.0022, -77.6043),
]

ETHNICITIES = ("White", "Black", "Asian", "Indigenous", "Other", "")  # "" = not recorded
ETHNICITY_P = {  # urban, rural
    False: (0.64, 0.08, 0.15, 0.02, 0.08, 0.03),
    True: (0.86, 0.02, 0.03, 0.05, 0.02, 0.02),
}
ETHNICITY_GROUPS = {
    "White": "Not a visible minority",
    "Black": "Visible minority",
    "Asian": "Visible minority",
    "Other": "Visible minority",
    "Indigenous": "Indigenous",
    "": "",
}

CHAPTERS = (
    "II Neoplasms",
    "IX Circulatory",
    "X Respiratory",
    "XI Digestive",
    "XIII Musculoskeletal",
    "XIV Genitourinary",
    "XV Pregnancy",
    "XVI Perinatal",
    "XIX Injury",
)
# chapter index -> (seasonal amplitude, peak day of year, weekend factor)
SEASON = {
    0: (0.03, 15, 0.35),
    1: (0.15, 15, 0.85),
    2: (0.65, 20, 0.95),
    3: (0.05, 15, 0.70),
    4: (0.05, 100, 0.25),
    5: (0.05, 200, 0.85),
    6: (0.06, 250, 0.90),
    7: (0.06, 250, 0.95),
    8: (0.12, 200, 1.05),
}

# code, block, chapter index, weight within chapter, sex (None = both), min age, max age,
# age trend (weight x exp(trend * (age - 50) / 25)), mean length of stay (days), procedure cost
# (ICD-10, WHO 2016; the 3-character category is the code before the dot)
CODES: list[tuple[str, str, int, float, str | None, int, int, float, float, float]] = [
    ("C18.7", "C15-C26", 0, 1.0, None, 30, 99, 1.0, 9, 9000),
    ("C18.9", "C15-C26", 0, 0.8, None, 30, 99, 1.0, 9, 9000),
    ("C25.0", "C15-C26", 0, 0.5, None, 35, 99, 1.0, 11, 10000),
    ("C34.1", "C30-C39", 0, 1.0, None, 35, 99, 1.2, 8, 8000),
    ("C34.9", "C30-C39", 0, 1.0, None, 35, 99, 1.2, 8, 8000),
    ("C50.4", "C50-C50", 0, 1.0, "F", 25, 99, 0.3, 3, 7000),
    ("C50.9", "C50-C50", 0, 0.8, "F", 25, 99, 0.3, 3, 7000),
    ("C67.9", "C64-C68", 0, 0.6, None, 40, 99, 1.5, 5, 6000),
    ("C91.1", "C81-C96", 0, 0.4, None, 40, 99, 1.5, 7, 8000),
    ("D25.9", "D10-D36", 0, 0.8, "F", 25, 60, 0.0, 3, 5000),
    ("I11.9", "I10-I15", 1, 0.5, None, 40, 99, 1.0, 4, 2000),
    ("I20.0", "I20-I25", 1, 1.0, None, 35, 99, 0.5, 3, 4000),
    ("I21.4", "I20-I25", 1, 1.5, None, 35, 99, 0.5, 5, 12000),
    ("I21.9", "I20-I25", 1, 0.6, None, 35, 99, 0.5, 5, 12000),
    ("I25.1", "I20-I25", 1, 0.8, None, 40, 99, 0.5, 3, 9000),
    ("I26.9", "I26-I28", 1, 0.5, None, 20, 99, 0.3, 6, 3000),
    ("I48.9", "I30-I52", 1, 1.2, None, 40, 99, 1.0, 4, 3000),
    ("I50.0", "I30-I52", 1, 1.3, None, 45, 99, 1.5, 9, 3500),
    ("I50.9", "I30-I52", 1, 0.7, None, 45, 99, 1.5, 9, 3500),
    ("I61.9", "I60-I69", 1, 0.4, None, 30, 99, 1.0, 14, 9000),
    ("I63.9", "I60-I69", 1, 1.4, None, 35, 99, 1.2, 11, 7000),
    ("I70.2", "I70-I79", 1, 0.5, None, 45, 99, 1.0, 8, 11000),
    ("J03.9", "J00-J06", 2, 0.6, None, 1, 30, -2.0, 2, 1200),
    ("J10.1", "J09-J18", 2, 0.8, None, 0, 99, 0.0, 5, 2000),
    ("J15.9", "J09-J18", 2, 0.7, None, 0, 99, 0.8, 8, 3000),
    ("J18.1", "J09-J18", 2, 0.5, None, 0, 99, 0.5, 7, 2500),
    ("J18.9", "J09-J18", 2, 1.8, None, 0, 99, 0.5, 7, 2500),
    ("J20.9", "J20-J22", 2, 0.6, None, 0, 99, 0.0, 3, 1500),
    ("J21.9", "J20-J22", 2, 1.5, None, 0, 2, 0.0, 3, 2000),
    ("J44.0", "J40-J47", 2, 0.7, None, 45, 99, 1.0, 7, 2500),
    ("J44.1", "J40-J47", 2, 1.4, None, 45, 99, 1.0, 7, 2500),
    ("J45.9", "J40-J47", 2, 0.8, None, 2, 99, -1.0, 3, 1500),
    ("K29.1", "K20-K31", 3, 0.5, None, 15, 99, 0.3, 3, 2000),
    ("K35.8", "K35-K38", 3, 1.5, None, 5, 80, -1.5, 3, 6000),
    ("K40.9", "K40-K46", 3, 0.8, None, 0, 99, 0.5, 1, 4500),
    ("K57.3", "K55-K64", 3, 0.9, None, 35, 99, 1.0, 5, 3000),
    ("K80.2", "K80-K87", 3, 1.0, None, 20, 99, 0.3, 2, 5500),
    ("K81.0", "K80-K87", 3, 0.7, None, 20, 99, 0.5, 4, 6000),
    ("K85.9", "K80-K87", 3, 0.7, None, 20, 99, 0.3, 6, 3500),
    ("K92.2", "K90-K93", 3, 0.8, None, 20, 99, 1.0, 5, 3000),
    ("M16.1", "M15-M19", 4, 1.2, None, 45, 99, 0.8, 4, 14000),
    ("M17.1", "M15-M19", 4, 1.4, None, 45, 99, 0.6, 4, 13500),
    ("M48.0", "M45-M49", 4, 0.6, None, 45, 99, 0.8, 5, 12000),
    ("M54.5", "M50-M54", 4, 0.6, None, 18, 99, 0.0, 4, 1500),
    ("M75.1", "M70-M79", 4, 0.4, None, 30, 85, 0.0, 1, 5000),
    ("M80.0", "M80-M85", 4, 0.5, "F", 50, 99, 1.5, 10, 4000),
    ("N17.9", "N17-N19", 5, 1.0, None, 30, 99, 1.5, 8, 3500),
    ("N18.5", "N17-N19", 5, 0.5, None, 30, 99, 0.8, 6, 6000),
    ("N20.0", "N20-N23", 5, 0.8, None, 20, 85, 0.0, 2, 3500),
    ("N39.0", "N30-N39", 5, 1.6, None, 0, 99, 1.2, 5, 2000),
    ("N41.0", "N40-N51", 5, 0.3, "M", 20, 99, 0.5, 4, 2000),
    ("N81.2", "N80-N98", 5, 0.6, "F", 35, 99, 0.8, 2, 5000),
    ("N83.2", "N80-N98", 5, 0.6, "F", 15, 60, -0.5, 2, 4500),
    ("O00.1", "O00-O08", 6, 0.3, "F", 15, 49, 0.0, 2, 3500),
    ("O03.9", "O00-O08", 6, 0.6, "F", 15, 49, 0.0, 1, 1500),
    ("O14.1", "O10-O16", 6, 0.3, "F", 15, 49, 0.0, 5, 4000),
    ("O24.4", "O20-O29", 6, 0.5, "F", 15, 49, 0.0, 3, 2500),
    ("O70.0", "O60-O75", 6, 1.5, "F", 15, 49, 0.0, 2, 2500),
    ("O72.1", "O60-O75", 6, 0.5, "F", 15, 49, 0.0, 3, 3500),
    ("O80.0", "O80-O84", 6, 4.0, "F", 15, 49, 0.0, 2, 2200),
    ("O82.0", "O80-O84", 6, 1.5, "F", 15, 49, 0.0, 3, 5500),
    ("P07.3", "P05-P08", 7, 0.8, None, 0, 0, 0.0, 18, 15000),
    ("P22.1", "P20-P29", 7, 0.8, None, 0, 0, 0.0, 4, 3000),
    ("P59.9", "P50-P61", 7, 1.4, None, 0, 0, 0.0, 3, 1500),
    ("S06.0", "S00-S09", 8, 1.0, None, 0, 99, -0.3, 2, 1500),
    ("S52.5", "S50-S59", 8, 0.8, None, 5, 99, 0.3, 2, 4000),
    ("S72.0", "S70-S79", 8, 1.5, None, 50, 99, 2.5, 12, 11000),
    ("S72.1", "S70-S79", 8, 1.0, None, 50, 99, 2.5, 12, 11000),
    ("S82.6", "S80-S89", 8, 0.7, None, 10, 99, 0.0, 3, 5000),
    ("T81.4", "T80-T88", 8, 0.6, None, 18, 99, 0.8, 9, 5000),
]
PER_DIEM = 900.0
